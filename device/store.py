"""The game log: SQLite, append-only, committed before anybody sees an effect.

Why these settings: WAL lets the screens read while the loop writes; ``synchronous=FULL`` makes every
commit durable across a power cut (a Pi on a table gets unplugged), at a cost of one fsync per decision,
which is nothing at the pace of a board game.  Each decision's events go in one transaction, so a crash
leaves either the whole decision or none of it.

A file that is not a Pitboard log, or is damaged, is never rewritten: :class:`StoreError` names the file
and says what to do, and the owner's data stays as it was.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from games.core import Event, Game, Match, Record
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


class StoreError(Exception):
    """The log cannot be used as it is; the message says what is wrong and what to do."""


@dataclass(frozen=True)
class GameInfo:
    id: int
    game: str
    title: str
    created: str
    finished: bool
    events: int


def _utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class Store:
    """One SQLite file holding any number of games.  ``clock`` is injected for tests."""

    def __init__(self, path: str | Path, *, clock: Callable[[], str] = _utc_now) -> None:
        self.path = Path(path)
        self._clock = clock
        if self.path.exists() and self.path.is_dir():
            raise StoreError(f"{self.path} is a folder; give a file path for the game log")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), isolation_level=None, timeout=10)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open the game log {self.path}: {exc}; check the folder exists and is writable") from exc
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._check_or_create()
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise StoreError(
                f"{self.path} is not a Pitboard game log or is damaged ({exc}). It was left untouched: "
                "move it aside (keep it — `sqlite3 FILE .recover` may save its games) and start a new log."
            ) from exc

    def _check_or_create(self) -> None:
        app_id = self._db.execute("PRAGMA application_id").fetchone()[0]
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if app_id == 0 and not tables:
            self._db.executescript(
                f"BEGIN IMMEDIATE; {_SCHEMA} PRAGMA application_id={APPLICATION_ID}; "
                f"PRAGMA user_version={SCHEMA_VERSION}; COMMIT;"
            )
            return
        if app_id != APPLICATION_ID:
            raise sqlite3.DatabaseError("it holds other tables, not a Pitboard log")
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} was written by a newer Pitboard (log version {version}, this one reads {SCHEMA_VERSION}); "
                "upgrade Pitboard to open it"
            )

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- games ------------------------------------------------------------------------------------
    def new_game(self, game: str, title: str = "") -> int:
        """A game row with no events yet (``Match.begin(..., sink=store.sink(id))`` records decision 0).
        A game left without events by a crash is ignored by :meth:`latest_unfinished`;
        :meth:`begin_game` does both in one transaction."""
        cur = self._db.execute("INSERT INTO games (game, title, created) VALUES (?, ?, ?)", (game, title, self._clock()))
        return int(cur.lastrowid or 0)

    def begin_game(self, game: str, events: Sequence[Event], title: str = "") -> tuple[int, list[Record]]:
        """Create a game and record its first decision in ONE transaction: a crash in between cannot leave
        a game with no events behind."""
        now = self._clock()
        try:
            self._db.execute("BEGIN IMMEDIATE")
            cur = self._db.execute("INSERT INTO games (game, title, created) VALUES (?, ?, ?)", (game, title, now))
            game_id = int(cur.lastrowid or 0)
            records = self._insert(game_id, 0, 0, events, now)
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise StoreError(f"could not write to the game log {self.path}: {exc}; the game was not started") from exc
        return game_id, records

    def games(self) -> list[GameInfo]:
        rows = self._db.execute(
            "SELECT g.id, g.game, g.title, g.created, g.finished, COUNT(e.seq) FROM games g "
            "LEFT JOIN events e ON e.game_id = g.id GROUP BY g.id ORDER BY g.id"
        ).fetchall()
        return [GameInfo(r[0], r[1], r[2], r[3], bool(r[4]), r[5]) for r in rows]

    def latest_unfinished(self, game: str) -> int | None:
        row = self._db.execute(
            "SELECT id FROM games WHERE game = ? AND finished = 0 "
            "AND EXISTS (SELECT 1 FROM events WHERE events.game_id = games.id) ORDER BY id DESC LIMIT 1",
            (game,),
        ).fetchone()
        return None if row is None else int(row[0])

    def open_match(
        self, game: Game[Any, Any], options: Mapping[str, Any] | None, *, new: bool = False
    ) -> tuple[int, Match[Any], bool]:
        """Resume the newest unfinished game of this kind, or begin one from ``options`` (``new``: always
        begin).  Returns ``(game_id, match, resumed)``; the match records through this store.  A log that
        cannot be replayed is a :class:`StoreError` and is left as it is; bad options raise
        :class:`games.core.Illegal` from the game."""
        game_id = None if new else self.latest_unfinished(game.name)
        if game_id is not None:
            try:
                return game_id, Match(game, self.records(game_id), sink=self.sink(game_id)), True
            except CorruptLog as exc:
                raise StoreError(
                    f"{self.path}: game {game_id} cannot be replayed ({exc}). Nothing was changed; export it with "
                    f"`pitboard log export --db {self.path} --game-id {game_id}` to inspect it, or start a new game"
                ) from None
        if options is None:
            raise StoreError(f"{self.path} holds no unfinished {game.name} game, and no setup was given to start one")
        game_id, records = self.begin_game(game.name, list(game.start(options)))
        return game_id, Match(game, records, sink=self.sink(game_id)), False

    def finish(self, game_id: int) -> None:
        self._db.execute("UPDATE games SET finished = 1 WHERE id = ?", (game_id,))

    # -- events -----------------------------------------------------------------------------------
    def sink(self, game_id: int) -> Callable[[int, Sequence[Event]], list[Record]]:
        """A :data:`games.core.match.Sink` bound to one game."""
        return lambda decision, events: self.append(game_id, decision, events)

    def append(self, game_id: int, decision: int, events: Sequence[Event]) -> list[Record]:
        """Append one decision's events in one transaction; returns them once they are durable."""
        now = self._clock()
        try:
            self._db.execute("BEGIN IMMEDIATE")
            row = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE game_id = ?", (game_id,)).fetchone()
            records = self._insert(game_id, int(row[0]), decision, events, now)
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise StoreError(f"could not write to the game log {self.path}: {exc}; nothing of this step was recorded") from exc
        return records

    def _insert(self, game_id: int, last_seq: int, decision: int, events: Sequence[Event], now: str) -> list[Record]:
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
        for seq, decision, kind, data in self._db.execute(
            "SELECT seq, decision, type, data FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
        ):
            try:
                payload = json.loads(data)
            except json.JSONDecodeError as exc:
                raise StoreError(f"{self.path}: event {seq} of game {game_id} is not valid JSON ({exc})") from exc
            out.append(Record(seq, decision, Event(kind, payload)))
        return out

    def export_jsonl(self, game_id: int) -> Iterator[str]:
        """The game as JSON lines: one line per event, undone ones included (the log is the truth)."""
        for seq, decision, kind, data, recorded in self._db.execute(
            "SELECT seq, decision, type, data, recorded FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
        ):
            yield json.dumps(
                {"seq": seq, "decision": decision, "type": kind, "data": json.loads(data), "recorded": recorded},
                sort_keys=True,
            )

    def integrity_check(self) -> str:
        return str(self._db.execute("PRAGMA integrity_check").fetchone()[0])


