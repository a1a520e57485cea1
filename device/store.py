"""The game log: SQLite, append-only, committed before anybody sees an effect.

Why these settings: WAL lets the screens read while the loop writes; ``synchronous=FULL`` makes every
commit durable across a power cut (a Pi on a table gets unplugged), at a cost of one fsync per decision,
which is nothing at the pace of a board game.  Each decision's events go in one transaction, so a crash
leaves either the whole decision or none of it.

A file that is not a Pitboard log, or is damaged, is never rewritten: it is looked at read-only (its
header first, then SQLite in ``mode=ro``) until it is known to be a Pitboard log, and :class:`StoreError`
names the file, says what is really wrong (damaged, someone else's database, read-only, locked, disk
full) and what to do.  A new log gets its schema only when its first game is begun, so a refused
``play`` leaves no file behind it and a 0-byte file stays 0 bytes.

One writer per log: a writing :class:`Store` holds an exclusive ``flock`` on ``LOG-lock`` beside the log
(holding the writer's PID and command) for as long as it is open, and a second writer — the service and a
hand-run ``play``, say — is refused before anything is written.  Readers (``Store(path, read_only=True)``:
``pitboard log list/export``) take no lock, never write, and work on a read-only mount.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import json
import os
import sqlite3
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable
from urllib.parse import quote

from games.core import Event, Game, Illegal, Match, Record
from games.core.match import CorruptLog

SCHEMA_VERSION = 1
APPLICATION_ID = 0x50495442  # "PITB": marks the file as ours

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id       INTEGER PRIMARY KEY,
    game     TEXT NOT NULL,
    title    TEXT NOT NULL DEFAULT '',
    created  TEXT NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS events (
    game_id   INTEGER NOT NULL REFERENCES games(id),
    seq       INTEGER NOT NULL,
    decision  INTEGER NOT NULL,
    type      TEXT NOT NULL,
    data      TEXT NOT NULL,
    recorded  TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""
_COLUMNS = {
    "games": ("id", "game", "title", "created", "finished"),
    "events": ("game_id", "seq", "decision", "type", "data", "recorded"),
}
_KEEP = "It was left untouched"
BUSY_TIMEOUT = 10.0  # seconds a write waits for another program's SQLite lock before it is told
_LOW_SPACE = 256 * 1024  # below this many free bytes an I/O failure is called "disk full"


class StoreError(Exception):
    """The log cannot be used as it is; the message says what is wrong and what to do.  ``short`` says it
    in a few words for the players' screens (the whole message goes to the journal and the terminal)."""

    def __init__(self, message: str, *, short: str | None = None) -> None:
        super().__init__(message)
        self.short = short or message


class NoGameToResume(StoreError):
    """The log holds no unfinished game of this kind and no setup was given to begin one."""


#: ``games.finished`` of a game ended before its end from the phone page (0: playing, 1: over).
ENDED_UNFINISHED = 2


@dataclass(frozen=True)
class GameInfo:
    id: int
    game: str
    title: str
    created: str
    finished: bool
    events: int
    #: ended from the phone page before its end ("End the game in progress" and another started): never resumed
    ended_unfinished: bool = False


def _utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _me() -> str:
    """How a writer names itself in the lock file: ``pitboard play``, ``pitboard run``, ..."""
    argv = [a for a in sys.argv if a]
    name = Path(argv[0]).name if argv else "python"
    if name in ("-c", "-m", "__main__.py"):
        name = "python"
    if len(argv) > 1 and not argv[1].startswith("-"):
        name += f" {argv[1]}"
    return name


def lock_path(path: Path) -> Path:
    """The lock file of a log: ``LOG-lock`` beside it (like SQLite's ``-wal`` and ``-shm``)."""
    return path.with_name(path.name + "-lock")


class _WriterLock:
    """An exclusive ``flock`` on ``LOG-lock``, removed on release.  The file holds ``PID command`` so a
    refused writer can say who has the log.  After locking, the file must still be the one at the path
    (a releasing holder unlinks it while it still holds the lock), otherwise it is tried again."""

    def __init__(self, log: Path) -> None:
        import fcntl

        self.path = lock_path(log)
        for _ in range(20):
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = self._holder(fd)
                os.close(fd)
                raise StoreError(
                    f"this log is in use by {holder}: {log} has one writer at a time. Nothing was written; stop "
                    "that program first (or wait for it to finish), or use another log (--db; the appliance: [store] path). "
                    "`pitboard log list/export` can read it meanwhile"
                ) from None
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                self.fd: int | None = fd
                try:
                    os.ftruncate(fd, 0)
                    os.write(fd, f"{os.getpid()} {_me()}\n".encode())
                except OSError:
                    pass  # the lock holds without the note; the store says what is wrong with the disk
                return
            os.close(fd)
        raise StoreError(f"could not lock {log} ({self.path} keeps changing); try again")

    @staticmethod
    def _holder(fd: int) -> str:
        try:
            pid, who = _lock_note(os.pread(fd, 200, 0).decode("utf-8", "replace"))
        except OSError:
            pid, who = None, ""
        if pid is not None:
            return f"`{who or 'another program'}` (PID {pid})"
        return "another program"

    def release(self) -> None:
        if self.fd is None:
            return
        try:
            os.unlink(self.path)
        except OSError:
            pass
        os.close(self.fd)
        self.fd = None


def lock_holder(log: Path) -> str:
    """" (PID 24502)" of the writer holding ``log``'s lock, by its lock note; "" when none is known."""
    try:
        pid, _ = _lock_note(lock_path(log).read_text(encoding="utf-8", errors="replace")[:200])
    except OSError:
        return ""
    return f" (PID {pid})" if pid is not None else ""


def _lock_note(text: str) -> tuple[int | None, str]:
    """The lock file's note, "PID program" as the writer wrote it: (the PID, the program), or (None, "")."""
    said = text.split()
    if not said or not (said[0].isascii() and said[0].isdigit()):
        return None, ""
    return int(said[0]), " ".join(said[1:])


def _writer_alive(log: Path) -> bool:
    """Whether a writer has ``log`` open now: its lock file names a running process (read only: a lock taken to
    find out could refuse that writer).  A -wal file is then the writer's live one, not one a crash left."""
    try:
        pid, _ = _lock_note(lock_path(log).read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return False
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except PermissionError:  # another user's process: running
        return True
    except (OSError, OverflowError):  # none by that number: the lock a crash left
        return False
    return True


def _header(path: Path) -> bytes:
    with path.open("rb") as fh:
        return fh.read(100)


def _free_bytes(folder: Path) -> int | None:
    try:
        st = os.statvfs(folder)
    except OSError:
        return None
    return st.f_bavail * st.f_frsize


def _hot(journal: Path) -> bool:
    """A rollback journal SQLite would roll back (its header not zeroed: a write cut short)."""
    try:
        with journal.open("rb") as f:
            return f.read(1) not in (b"", b"\x00")
    except OSError:
        return False


def _writable(folder: Path) -> bool:
    return os.access(folder, os.W_OK)


#: :func:`log_unwritable`'s words for a log nobody may write.
MARKED_READ_ONLY = "marked read-only (no write permission for anyone)"


def log_unwritable(path: Path) -> str | None:
    """Why the game log at ``path`` may not be written (None: it may): this user may not ("read-only to this
    user"), or it is :data:`MARKED_READ_ONLY` (no write bit at all: root may write anyway, and played on a 0444 log
    an owner had made read-only, an audit)."""
    if not os.access(path, os.W_OK):
        return "read-only to this user"
    try:
        return None if path.stat().st_mode & 0o222 else MARKED_READ_ONLY
    except OSError:
        return "read-only to this user"


def log_path_problem(path: Path) -> str | None:
    """Why the game log's path cannot be opened or made: a symbolic link that loops, or leads to a file whose folder
    is not there (a drive not mounted: "damaged (unable to open database file)" was said, with "start a
    new log", of a log on a USB stick not yet mounted), else None.  A link to a log not yet made, in a folder that
    is there, is where the first game writes it.  Or a path that is no file at all, a named pipe or a device
    (``/dev/null`` was "OK" to check, and a pipe "the disk failed: check the disk" to play: a bad-input audit)."""
    from device.safe_files import unreachable

    why = unreachable(path)
    if why is None or "named pipe" in why:
        return why
    if "symbolic link" not in why:
        return None
    if "leads back to itself" in why:
        return why
    target = Path(os.readlink(path))
    folder = (path.parent / target).parent
    if folder.is_dir():
        return None
    return (f"is a symbolic link to {target}, whose folder {folder} is not there (a drive not mounted?): mount it, or "
            "point the link or the log's path elsewhere; nothing was created")


def check_not_orphaned(path: Path) -> None:
    """Refuse a missing or 0-byte log with a -wal file or a hot journal beside it: that is no new log, those
    files hold its games (a crash, a copy that missed the main file), and SQLite would delete a -wal file
    beside an empty database the moment it was opened."""
    if path.is_file() and path.stat().st_size > 0:
        return
    wal = path.with_name(path.name + "-wal")
    journal = path.with_name(path.name + "-journal")
    left = next((f for f in (wal, journal) if f.is_file() and f.stat().st_size > 0 and (f is wal or _hot(f))), None)
    if left is None:
        return
    what = "empty (0 bytes)" if path.exists() else "missing"
    raise StoreError(
        f"{path} is {what} but {left.name} beside it holds {left.stat().st_size} bytes: that file holds the "
        f"log's games (a crash, or a copy that missed {path.name}). Nothing was changed: keep both files "
        f"together, put {path.name} back beside it if it was copied without it, or move both aside and start a "
        "new log (another --db; the appliance: [store] path in pitboard.toml)",
        short=f"the game log is {'empty' if path.exists() else 'missing'} beside its {left.name.rsplit('-', 1)[-1]} "
              "file: see pitboard check",
    )


class Store:
    """One SQLite file holding any number of games.  ``clock`` is injected for tests.

    ``read_only``: look, never write, take no lock; the file must exist.  Otherwise this is THE writer of
    the log (a second one is refused); a missing or 0-byte file is a new log, created by the first game."""

    def __init__(self, path: str | Path, *, clock: Callable[[], str] = _utc_now, read_only: bool = False) -> None:
        self.path = Path(path)
        self._clock = clock
        self.read_only = read_only
        self._db: sqlite3.Connection | None = None
        self._lock: _WriterLock | None = None
        from device.safe_files import closed_to_user

        closed = closed_to_user(self.path) or log_path_problem(self.path)
        if closed:  # (a link to a log not yet made, in a folder that is there, is sqlite's to create, as before)
            raise StoreError(f"the game log {self.path} {closed}")
        if self.path.is_dir():
            raise StoreError(f"{self.path} is a folder; give a file path for the game log")
        exists = self.path.exists()
        empty = not exists or self.path.stat().st_size == 0
        if empty:
            check_not_orphaned(self.path)
        if read_only and not exists:
            raise StoreError(f"there is no game log {self.path}: check the path (nothing was created)")
        #: Said to the maker and the table when the log's -wal file holds decisions SQLite will not read
        #: (:meth:`_keep_damaged_wal`); ``wal_short``: in a few words, for the screens.
        self.wal_note: str | None = None
        self.wal_short: str | None = None
        if not empty:
            self._check_header()
        if not read_only:
            self._take_lock()
        if not empty:
            self._keep_damaged_wal()  # (a writer's copy before SQLite opens the log and may delete the file)
        try:
            if not empty:
                self._open_existing()
        except BaseException:
            self.close()
            raise

    # -- opening ----------------------------------------------------------------------------------
    def _keep_damaged_wal(self) -> None:
        """Decisions committed in the -wal file after a damaged frame (``device.wal_scan``) are not read by SQLite,
        and its next checkpoint deletes the file: a writer keeps a copy of it first, and both say so.  A copy that
        cannot be made refuses the log, untouched."""
        from device.wal_scan import scan

        if self.read_only and _writer_alive(self.path):
            # a running writer's -wal (the appliance's, read by its own phone page or by check): not a crash's, and
            # summing its checksums at every read of the log is seconds on a Pi
            return
        wal = self.path.with_name(self.path.name + "-wal")
        try:
            data = wal.read_bytes() if wal.is_file() else b""
        except OSError:
            return  # (SQLite's own opening says what is wrong with a file it cannot read)
        found = scan(data)
        lost = found.unread_commits
        if not lost and not found.header_damaged:
            return
        decisions = f"{lost} decision{'s' if lost > 1 else ''}" if lost else "the decisions"
        if found.header_damaged:  # SQLite reads none of the file
            said = (f"{wal} is damaged: its header cannot be read, so {decisions} recorded in it cannot be (a failing "
                    "SD card, or a copy cut short)")
            self.wal_short = f"{decisions} in a damaged part of the log unread"
        else:
            said = (f"{wal} is damaged: {decisions} recorded after its damaged part cannot be read (a failing SD "
                    "card, or a copy cut short)")
            self.wal_short = f"{decisions} after a damaged part of the log unread"
        if self.read_only:
            self.wal_note = (f"{said}; a game resumed from it goes on from the decisions before that part, and a "
                             "copy of the file is kept then")
            return
        stamp = "".join(ch for ch in self._clock() if ch.isdigit())[:14] or "copy"
        kept = wal.with_name(f"{wal.name}.damaged-{stamp}")
        n = 1
        while kept.exists():
            n += 1
            kept = wal.with_name(f"{wal.name}.damaged-{stamp}-{n}")
        same = self._same_copy(wal, data)
        try:
            if same is not None:  # a start that ended before the first move (a restart loop) copied it already: a
                kept = same  # copy at every start filled the card (a review)
            else:
                with open(kept, "xb") as out:
                    out.write(data)
                    out.flush()
                    os.fsync(out.fileno())
        except OSError as exc:
            with contextlib.suppress(OSError):
                kept.unlink()
            self.close()
            raise StoreError(f"{said}, and no copy of it could be kept as {kept.name} ({exc.strerror}). {_KEEP}: "
                             "free space or give write access there, then start again (opening the log would "
                             "lose those decisions for good)") from None
        self.wal_note = (f"{said}; the game goes on from the decisions before it. A copy is kept as {kept.name}: "
                         "keep it, the lost decisions may be saved from it")
        self.wal_short += "; a copy is kept beside the log (pitboard check names it)"  # (its name: 5 pieces)

    @staticmethod
    def _same_copy(wal: Path, data: bytes) -> Path | None:
        """A copy of ``wal`` kept beside it already holding ``data``, byte for byte (None: none)."""
        for old in sorted(wal.parent.glob(f"{glob.escape(wal.name)}.damaged-*")):
            try:
                if old.stat().st_size == len(data) and old.read_bytes() == data:
                    return old
            except OSError:
                continue
        return None

    def _damaged(self, why: str) -> StoreError:
        return StoreError(
            f"{self.path} is not a Pitboard game log or is damaged ({why}). {_KEEP}: move it aside with its -wal "
            "and -shm files if any (keep them — `sqlite3 FILE .dump > saved.sql` may save what can still be read) and "
            "start a new log (another --db; the appliance: [store] path in pitboard.toml)."
        )

    def _foreign(self, why: str) -> StoreError:
        return StoreError(
            f"{self.path} is another program's SQLite database, not a Pitboard game log ({why}). {_KEEP}; "
            "give the game log a new file (--db; the appliance: [store] path in pitboard.toml)."
        )

    def _check_header(self) -> None:
        """Decide from the first 100 bytes, without SQLite, whether the file may be ours."""
        try:
            head = _header(self.path)
        except OSError as exc:
            raise StoreError(f"cannot read the game log {self.path}: {exc.strerror}; check its permissions") from None
        if len(head) < 100 or not head.startswith(b"SQLite format 3\x00"):
            raise self._damaged("it is not an SQLite database")
        app_id = int.from_bytes(head[68:72], "big")
        if app_id == APPLICATION_ID:
            return
        wal = self.path.with_name(self.path.name + "-wal")
        pending = wal.exists() and wal.stat().st_size > 0
        if app_id != 0 or not pending:  # the header is the truth: nothing waits in a -wal file
            raise self._foreign("it holds other tables" if int.from_bytes(head[28:32], "big") > 1
                                else "it is an SQLite database with no Pitboard tables")
        # app_id 0 with a -wal file: an older Pitboard wrote its header in the WAL; SQLite must look

    def _take_lock(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._lock = _WriterLock(self.path)
        except ImportError:  # pragma: no cover - not on Windows
            self._lock = None
        except OSError as exc:
            raise self._os_problem(exc) from None

    def _os_problem(self, exc: OSError) -> StoreError:
        folder = self.path.parent
        lock = lock_path(self.path)
        if lock.is_dir():  # the lock file's place is taken by a folder: it, not the log, is what is wrong
            return StoreError(f"{lock} is a folder where the game log's lock file belongs: rename or remove that "
                              f"folder (the log {self.path.name} itself was not touched)")
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM) and not self.path.exists():
            why = "a read-only filesystem" if exc.errno == errno.EROFS else exc.strerror
            return StoreError(f"{self.path} cannot be made here ({folder}: {why}): give --db (the appliance: [store] "
                              "path in pitboard.toml) a file in a folder this user can write. Nothing was changed")
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return StoreError(
                f"{self.path} cannot be written here ({folder}: {exc.strerror}): it can still be read with "
                "`pitboard log list/export`; to play on, copy it (with any -wal file) to a writable folder, "
                "and point --db (the appliance: [store] path in pitboard.toml) at it. Nothing was changed"
            )
        if exc.errno == errno.ENOSPC:
            return StoreError(f"the disk holding {self.path} is full: free some space and try again. Nothing was changed")
        return StoreError(f"cannot open the game log {self.path}: {exc.strerror or exc}; check the folder exists and is writable")

    def _sqlite_problem(self, exc: sqlite3.Error, doing: str) -> StoreError:
        """Say what is really wrong with an SQLite failure: locked, read-only, full, or damaged."""
        name = getattr(exc, "sqlite_errorname", "") or ""
        free = _free_bytes(self.path.parent)
        if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
            return StoreError(
                f"{self.path} is locked by another program (an open `sqlite3` shell or a copy tool?): {doing} "
                "failed. Nothing was changed; close that program and try again",
                short="the game log is locked by another program: close it, then try again",
            )
        journal = self.path.with_name(self.path.name + "-journal")
        if name == "SQLITE_READONLY_ROLLBACK" or (name.startswith("SQLITE_READONLY") and journal.exists()):
            return StoreError(
                f"{self.path} has {journal.name} beside it: a write cut short (a crash, a power cut) by a program "
                "that keeps a rollback journal - another program, or another Pitboard version - which SQLite must "
                f"roll back before the log is read: {doing} failed. {_KEEP}, and so was the journal: keep a copy of "
                f"both, then let SQLite roll it back as the user that owns the log: `sqlite3 {self.path} 'PRAGMA "
                f"integrity_check'` (on the Pi: `sudo -u pitboard sqlite3 ...`; no sqlite3 command: `sudo apt install "
                f"sqlite3`), and try again. If {journal.name} is not this log's, move it aside",
                short="the game log was left half-written: see pitboard check",
            )
        if name.startswith("SQLITE_FULL") or (free is not None and free < _LOW_SPACE):
            return StoreError(f"the disk holding {self.path} is full ({exc}): {doing} failed. Nothing was changed; "
                              "free some space and try again", short="the disk is full: free some space, then try again")
        if name.startswith("SQLITE_READONLY") or (name.startswith("SQLITE_CANTOPEN") and not _writable(self.path.parent)):
            return StoreError(
                f"{self.path} is read-only here ({exc}): {doing} failed. It can still be read with "
                "`pitboard log list/export`; to play on, copy it (with any -wal file) to a writable folder. "
                "Nothing was changed",
                short="the game log is read-only here: see pitboard check",
            )
        if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")):
            return self._damaged(str(exc))
        if name.startswith("SQLITE_IOERR"):
            return StoreError(f"the disk holding {self.path} failed ({exc}): {doing} failed. Check the disk; nothing "
                              "was changed", short="the disk failed: check it, then try again")
        return self._damaged(str(exc))

    def _connect(self, mode: str) -> sqlite3.Connection:
        uri = f"file:{quote(str(self.path.absolute()))}?mode={mode}"
        return sqlite3.connect(uri, uri=True, isolation_level=None, timeout=BUSY_TIMEOUT)

    def _connect_immutable(self) -> sqlite3.Connection:
        """A read of the file alone, as SQLite would not otherwise read it: no -wal, -shm or lock made or looked at."""
        return sqlite3.connect(f"file:{quote(str(self.path.absolute()))}?mode=ro&immutable=1", uri=True,
                               isolation_level=None)

    def _open_existing(self) -> None:
        sides = [self.path.with_name(self.path.name + end) for end in ("-wal", "-shm")]
        there = {f for f in sides if f.exists()}
        if self.read_only:
            self._open_read_only(nothing_beside=not there and not self.path.with_name(self.path.name + "-journal")
                                 .exists())
            return
        # a writer: known to be ours read-only first, then opened for writing
        how = log_unwritable(self.path)
        if how is not None:  # (SQLite opens such a file read-only without a word, and the table played until its
            # first move was NOT RECORDED: a bad-input audit)
            raise StoreError(
                f"{self.path} is {how}: it can still be read with `pitboard log list/export`; to "
                "play on, give the user running Pitboard write access to it (chmod u+w, or chown it to that user), "
                "or copy it (with any -wal file) to a writable folder and point --db (the appliance: [store] path in "
                "pitboard.toml) at it. Nothing was changed")
        try:
            probe = self._connect("ro")
        except sqlite3.Error as exc:
            raise self._sqlite_problem(exc, "opening it") from None
        try:
            self._db = probe
            self._verify()
        except (sqlite3.Error, StoreError) as exc:  # damaged, another program's, a newer Pitboard's
            problem = exc if isinstance(exc, StoreError) else self._sqlite_problem(exc, "opening it")
            probe.close()
            self._drop_probe_sides(sides, there)
            raise problem from None
        finally:
            probe.close()
            self._db = None
        try:
            self._db = self._connect("rw")
            self._verify()
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
        except sqlite3.Error as exc:
            raise self._sqlite_problem(exc, "opening it for writing") from None

    @staticmethod
    def _drop_probe_sides(sides: list[Path], there: set[Path]) -> None:
        """A log the writer's probe refused is "left untouched": the empty -wal and the -shm the probe made beside
        it go too (this writer holds the log's lock, so no other writer has them open, and an empty -wal holds
        nothing)."""
        wal = sides[0]
        if wal not in there and (not wal.exists() or wal.stat().st_size == 0):
            for f in sides:
                if f not in there:
                    with contextlib.suppress(OSError):  # a place we cannot write had none made
                        f.unlink(missing_ok=True)

    def _open_read_only(self, *, nothing_beside: bool) -> None:
        """A reader takes no lock, so it never deletes a side file (a writer may have opened the log since).
        With nothing beside the log every commit is in the file itself: it is checked first through a connection
        that makes no -wal or -shm (immutable), so a log refused (damaged, another program's, a newer
        Pitboard's) is left exactly as it was; `log list`/`export` of a damaged log left an empty -wal and a -shm
        beside it."""
        if nothing_beside:
            look = self._connect_immutable()
            try:
                self._db = look
                self._verify()
            except sqlite3.Error as exc:
                raise self._sqlite_problem(exc, "reading it") from None
            finally:
                look.close()
                self._db = None
        self._db = self._connect("ro")
        try:
            self._verify()
        except sqlite3.OperationalError as exc:
            self._db.close()
            self._db = None
            wal = self.path.with_name(self.path.name + "-wal")
            name = getattr(exc, "sqlite_errorname", "") or ""
            if not name.startswith(("SQLITE_CANTOPEN", "SQLITE_IOERR", "SQLITE_FULL", "SQLITE_READONLY")):
                raise self._sqlite_problem(exc, "reading it") from None
            journal = self.path.with_name(self.path.name + "-journal")
            if name == "SQLITE_READONLY_ROLLBACK" or _hot(journal):
                # a write cut short that SQLite must roll back first: read as it is, the file may hold
                # half of that write (the immutable read below would not look at the journal)
                raise self._sqlite_problem(exc, "reading it") from None
            if wal.exists() and wal.stat().st_size > 0:
                if _writable(self.path.parent):
                    raise self._sqlite_problem(exc, "reading it") from None
                raise StoreError(
                    f"{self.path} is on a read-only place and its newest events are in {wal.name}, which SQLite "
                    f"cannot read there without {self.path.name}-shm. {_KEEP}: copy the log and its -wal file "
                    "to a writable folder and read the copy"
                ) from None
            # SQLite could not make the -shm file it reads a WAL log with (a read-only mount, a full disk),
            # so no writer has the log open and nothing waits in a -wal: the file is all there is
            # (immutable)
            self._db = self._connect_immutable()
            try:
                self._verify()
            except sqlite3.Error as exc2:
                raise self._sqlite_problem(exc2, "reading it") from None
        except sqlite3.Error as exc:
            raise self._sqlite_problem(exc, "reading it") from None

    def _verify(self) -> None:
        """The file is a Pitboard log of a version this Pitboard reads, with every table and column, and its
        pages hold together (SQLite's quick check)."""
        try:
            self._check_schema()
        except UnicodeDecodeError:  # bytes of the schema itself were damaged: names that are not text
            raise self._damaged("its tables' names are not readable text") from None
        assert self._db is not None
        # four bytes slipped into a page read as "game 1: 0 events" with no error from the queries; the check
        # reads every page once (milliseconds for a log of many games)
        said = self._db.execute("PRAGMA quick_check(1)").fetchone()
        if said is None or said[0] != "ok":
            raise self._damaged(f"SQLite's check of its pages: {said[0] if said else 'no answer'}".replace("\n", " "))

    def _check_schema(self) -> None:
        db = self._db
        assert db is not None
        app_id = db.execute("PRAGMA application_id").fetchone()[0]
        version = db.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if app_id != APPLICATION_ID:
            raise self._foreign("it holds other tables" if tables else "it is an SQLite database with no Pitboard tables")
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} was written by a newer Pitboard (log version {version}, this one reads {SCHEMA_VERSION}); "
                "upgrade Pitboard to open it. It was left untouched"
            )
        for table, columns in _COLUMNS.items():
            if table not in tables:
                raise self._edited(f"its table `{table}` is missing")
            have = {r[1] for r in db.execute(f"PRAGMA table_info({table})")}
            missing = [c for c in columns if c not in have]
            if missing:
                raise self._edited(f"the column{'s' if len(missing) > 1 else ''} {', '.join(missing)} of `{table}` "
                                   f"{'are' if len(missing) > 1 else 'is'} missing")

    def _edited(self, why: str) -> StoreError:
        return StoreError(
            f"{self.path} is a Pitboard game log that was changed by hand or by another program: {why}. {_KEEP}; "
            "restore it from a backup, or start a new log (another --db; the appliance: [store] path in "
            "pitboard.toml; export what is readable with "
            "`sqlite3 FILE .dump`)"
        )

    def _create(self) -> sqlite3.Connection:
        """The first write to a new log: schema and marks in one transaction, then WAL."""
        if self._db is not None:
            return self._db
        if self.read_only:
            raise StoreError(f"{self.path} was opened read-only")
        try:
            if self.path.exists() and self.path.stat().st_size > 0:
                raise StoreError(f"{self.path} was written by someone else meanwhile; {_KEEP}. Try again")
            self._db = self._connect("rwc")
            self._db.executescript(
                f"BEGIN IMMEDIATE; {_SCHEMA} PRAGMA application_id={APPLICATION_ID}; "
                f"PRAGMA user_version={SCHEMA_VERSION}; COMMIT;"
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
        except sqlite3.Error as exc:
            problem = self._sqlite_problem(exc, "creating the log")
            if self._db is not None:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                self._db.close()
                self._db = None
            raise problem from None
        except OSError as exc:
            raise self._os_problem(exc) from None
        return self._db

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        if self._lock is not None:
            self._lock.release()  # after SQLite let go of the file
            self._lock = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Rows of a read; nothing when the log has no schema yet."""
        if self._db is None:
            return []
        try:
            return self._db.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise self._sqlite_problem(exc, "reading it") from None

    # -- games ------------------------------------------------------------------------------------
    def new_game(self, game: str, title: str = "") -> int:
        """A game row with no events yet (``Match.begin(..., sink=store.sink(id))`` records decision 0).
        A game left without events by a crash is ignored by :meth:`latest_unfinished`;
        :meth:`begin_game` does both in one transaction."""
        db = self._create()
        try:
            cur = db.execute("INSERT INTO games (game, title, created) VALUES (?, ?, ?)", (game, title, self._clock()))
        except sqlite3.Error as exc:
            raise self._sqlite_problem(exc, "starting a game") from None
        return int(cur.lastrowid or 0)

    def begin_game(self, game: str, events: Sequence[Event], title: str = "") -> tuple[int, list[Record]]:
        """Create a game and record its first decision in ONE transaction: a crash in between cannot leave
        a game with no events behind."""
        db = self._create()
        now = self._clock()
        try:
            db.execute("BEGIN IMMEDIATE")
            cur = db.execute("INSERT INTO games (game, title, created) VALUES (?, ?, ?)", (game, title, now))
            game_id = int(cur.lastrowid or 0)
            records = self._insert(game_id, 0, 0, events, now)
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise StoreError(f"could not write to the game log {self.path}: {exc}; the game was not started") from exc
        return game_id, records

    def games(self) -> list[GameInfo]:
        rows = self._query(
            "SELECT g.id, g.game, g.title, g.created, g.finished, COUNT(e.seq) FROM games g "
            "LEFT JOIN events e ON e.game_id = g.id GROUP BY g.id ORDER BY g.id"
        )
        return [GameInfo(r[0], r[1], r[2], r[3], bool(r[4]), r[5], r[4] == ENDED_UNFINISHED) for r in rows]

    def has_game(self, game_id: int) -> bool:
        return bool(self._query("SELECT 1 FROM games WHERE id = ?", (game_id,)))

    def _newest_unfinished(self, game: str | None) -> tuple[int, str] | None:
        """(id, kind) of the newest unfinished game with events, of kind ``game`` (None: of whatever kind)."""
        rows = self._query(
            "SELECT id, game FROM games WHERE finished = 0 " + ("AND game = ? " if game is not None else "")
            + "AND EXISTS (SELECT 1 FROM events WHERE events.game_id = games.id) ORDER BY id DESC LIMIT 1",
            (game,) if game is not None else (),
        )
        return None if not rows else (int(rows[0][0]), str(rows[0][1]))

    def newest_unfinished_kind(self) -> str | None:
        """The kind of game ("gaslands") of the newest unfinished game in the log, of whatever kind: the one
        ``pitboard run`` resumes (a game begun from the phone page may be of another kind than the config's)."""
        newest = self._newest_unfinished(None)
        return None if newest is None else newest[1]

    def latest_unfinished(self, game: str) -> int | None:
        newest = self._newest_unfinished(game)
        return None if newest is None else newest[0]

    def open_match(
        self, game: Game[Any, Any], options: Mapping[str, Any] | None, *, new: bool = False
    ) -> tuple[int, Match[Any], bool]:
        """Resume the newest unfinished game of this kind, or begin one from ``options`` (``new``: always
        begin).  Returns ``(game_id, match, resumed)``; the match records through this store.  A log that
        cannot be replayed is a :class:`StoreError` and is left as it is; bad options raise
        :class:`games.core.Illegal` from the game."""
        game_id = None if new else self.latest_unfinished(game.name)
        if game_id is not None:
            hint = (f"Nothing was changed; export it with `pitboard log export --db {self.path} --game-id {game_id}` "
                    f"to inspect it, or {self._new_game(game.name)}")
            records = self.records(game_id)
            try:
                return game_id, Match(game, records, sink=self.sink(game_id)), True
            except (CorruptLog, Illegal, LookupError, TypeError, ValueError, AttributeError, AssertionError) as exc:
                why = exc.reason if isinstance(exc, Illegal) else (str(exc) if isinstance(exc, CorruptLog) else
                       f"its first events do not start a {game.name} game: {type(exc).__name__}: {exc}")
                raise StoreError(f"{self.path}: game {game_id} cannot be replayed ({why}). {hint}") from None
        if options is None:
            if new:  # the log may well hold an unfinished game: --new asked not to resume it
                raise NoGameToResume(f"a new {game.name} game begins from a setup, and none was given: add "
                                     "--setup FILE (or leave out --new to resume the unfinished game in "
                                     f"{self.path}, if there is one)")
            raise NoGameToResume(f"{self.path} holds no unfinished {game.name} game, and no setup was given to start one")
        events = starting_events(game, options)
        game_id, records = self.begin_game(game.name, events)
        return game_id, Match(game, records, sink=self.sink(game_id)), False

    def would_begin(self, game: Game[Any, Any]) -> bool:
        """Whether :meth:`open_match` (not ``new``) would begin a game rather than resume one."""
        return self.latest_unfinished(game.name) is None

    def _new_game(self, game: str) -> str:
        """How an owner begins another game in this log (``pitboard run`` has no --new: it resumes the newest
        unfinished game, which then is the new one).  Not the phone page's New game: a run that cannot replay the
        log serves no page (an audit: the words that stood on the screens sent the owner to a page not there)."""
        return (f"begin a new game: `pitboard play {game} --new --setup FILE --db {self.path}`; `pitboard run` then "
                "resumes that one")

    def _game_name(self, game_id: int) -> str:
        try:
            rows = self._query("SELECT game FROM games WHERE id = ?", (game_id,))
        except StoreError:
            rows = []
        return str(rows[0][0]) if rows else "GAME"

    def finish(self, game_id: int, finished: bool = True) -> None:
        """Mark the game over (not resumed again), or, ``finished`` False, playing again (its end undone)."""
        if self._db is None:
            return
        try:
            self._db.execute("UPDATE games SET finished = ? WHERE id = ?", (int(finished), game_id))
        except sqlite3.Error as exc:
            said = "finished" if finished else "playing again"
            raise self._sqlite_problem(exc, f"marking game {game_id} {said}") from None

    def end_unfinished(self, game_id: int) -> None:
        """Mark an unfinished game ended before its end, so that it is never resumed: the phone page's "End the
        game in progress" when another game begins in its place.  (Left unfinished, it came back at the next
        start once the new game was over: `pitboard run` resumes the newest unfinished game.)  A finished game
        stays finished."""
        if self._db is None:
            return
        try:
            self._db.execute("UPDATE games SET finished = ? WHERE id = ? AND finished = 0", (ENDED_UNFINISHED, game_id))
        except sqlite3.Error as exc:
            raise self._sqlite_problem(exc, f"marking game {game_id} ended unfinished") from None

    # -- events -----------------------------------------------------------------------------------
    def sink(self, game_id: int) -> Callable[[int, Sequence[Event]], list[Record]]:
        """A :data:`games.core.match.Sink` bound to one game."""
        return lambda decision, events: self.append(game_id, decision, events)

    def append(self, game_id: int, decision: int, events: Sequence[Event]) -> list[Record]:
        """Append one decision's events in one transaction; returns them once they are durable."""
        db = self._create()
        now = self._clock()
        try:
            db.execute("BEGIN IMMEDIATE")
            row = db.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE game_id = ?", (game_id,)).fetchone()
            records = self._insert(game_id, int(row[0]), decision, events, now)
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            if db.in_transaction:
                db.execute("ROLLBACK")
            name = getattr(exc, "sqlite_errorname", "") or ""
            free = _free_bytes(self.path.parent)
            if name.startswith(("SQLITE_FULL", "SQLITE_READONLY", "SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_IOERR")) or (
                    free is not None and free < _LOW_SPACE):
                # a full disk, a card gone read-only, another program's lock: said so, with what to do
                raise self._sqlite_problem(exc, "recording this step") from exc
            raise StoreError(f"could not write to the game log {self.path}: {exc}; nothing of this step was recorded") from exc
        return records

    def _insert(self, game_id: int, last_seq: int, decision: int, events: Sequence[Event], now: str) -> list[Record]:
        assert self._db is not None
        records = []
        for seq, event in enumerate(events, start=last_seq + 1):
            self._db.execute(
                "INSERT INTO events (game_id, seq, decision, type, data, recorded) VALUES (?, ?, ?, ?, ?, ?)",
                (game_id, seq, decision, event.type, json.dumps(dict(event.data), sort_keys=True), now),
            )
            records.append(Record(seq, decision, event))
        return records

    def records(self, game_id: int) -> list[Record]:
        out = []

        def damaged(seq: Any, what: str) -> StoreError:
            # said only for the event that is wrong: the advice reads the game's name (a query), not for every event
            return StoreError(f"{self.path}: event {seq} of game {game_id} {what}; the log was edited by hand, or "
                              "damaged on its card (a decision is written whole or not at all). Nothing was changed; "
                              f"see it with `pitboard log export --db {self.path} --game-id {game_id}`, "
                              f"or {self._new_game(self._game_name(game_id))}")

        for seq, decision, kind, data in self._query(
            "SELECT seq, decision, type, data FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
        ):
            try:
                payload = json.loads(data)
            # (a BLOB: bytes that are not UTF-8; nesting deeper than Python reads: an audit's 3,000 brackets was a
            # traceback in play, log export and sim, and "setup: maximum recursion depth" in run)
            except (ValueError, UnicodeDecodeError, TypeError, RecursionError) as exc:  # (and a number past 4,300 digits)
                raise damaged(seq, f"is not valid JSON ({exc})") from None
            if not isinstance(payload, dict):
                raise damaged(seq, f"has data that is not a JSON object ({type(payload).__name__})")
            if not isinstance(seq, int) or not isinstance(decision, int) or not isinstance(kind, str):
                raise damaged(seq, "has a seq, decision or type of the wrong kind")
            out.append(Record(seq, decision, Event(kind, payload)))
        return out

    def export_jsonl(self, game_id: int, problems: list[str] | None = None) -> Iterator[str]:
        """The game as JSON lines: one line per event, undone ones included (the log is the truth).  An event
        whose data is not JSON is exported as it is, under ``data_text`` with ``error``, and told in
        ``problems``: exporting is how a broken game is inspected."""
        for seq, decision, kind, data, recorded in self._query(
            "SELECT seq, decision, type, data, recorded FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
        ):
            # a log edited by another tool may hold BLOBs anywhere: shown as Python writes bytes, never a crash
            seq, decision, kind, recorded = (repr(v) if isinstance(v, bytes) else v for v in (seq, decision, kind, recorded))
            line: dict[str, Any] = {"seq": seq, "decision": decision, "type": kind, "recorded": recorded}
            try:
                line["data"] = json.loads(data)
            except (ValueError, UnicodeDecodeError, TypeError, RecursionError) as exc:  # (and a number past 4,300 digits)
                line["data"] = None
                line["data_text"] = data if isinstance(data, str) else repr(data)
                line["error"] = f"not valid JSON: {exc}"
                if problems is not None:
                    problems.append(f"event {seq}: its data is not valid JSON ({exc})")
            yield json.dumps(line, sort_keys=True)

    def integrity_check(self) -> str:
        if self._db is None:
            return "ok"
        return str(self._db.execute("PRAGMA integrity_check").fetchone()[0])


def starting_events(game: Game[Any, Any], options: Mapping[str, Any]) -> list[Event]:
    """The events that begin a game from ``options``, nothing written: bad options raise
    :class:`games.core.Illegal`, and so does a game that starts but cannot be shown (Match checks its prompt
    and views)."""
    events = list(game.start(options))
    try:
        Match(game, [Record(i + 1, 0, e) for i, e in enumerate(events)])
    except CorruptLog as exc:
        raise Illegal(f"the setup starts a game that cannot be played: {exc}") from None
    return events
