"""The game log's files under stress: a second writer, read-only places, a locked or full disk, another
program's database, hand edits, and the `play`/`log` command lines around them.  Nothing recorded is changed:
files are hashed before and after.

Read-only: tests run as root, for whom chmod does not stop a write, so a read-only place is a read-only
bind mount (``mount --bind`` + ``remount,ro``) of a folder holding a copy of the log; a full disk is a small
tmpfs.  Both are skipped where mounting is not allowed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from device import store as store_module
from device.cli import main
from device.store import Store, StoreError, lock_path
from games.gaslands import GAME

REPO = Path(__file__).resolve().parents[2]
TWO_PLAYERS = (
    '[[players]]\nname = "A"\n[[players.vehicles]]\ntype = "buggy"\n'
    '[[players]]\nname = "B"\n[[players.vehicles]]\ntype = "car"\n'
)
MOVES = '{"type": "choose_template", "template": "gentle"}\n{"type": "place_template"}\n'


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def siblings(path: Path) -> set[str]:
    return {p.name for p in path.parent.iterdir()}


def make_log(tmp_path: Path, name: str = "g.sqlite", script: str = MOVES) -> Path:
    setup = tmp_path / "setup.toml"
    setup.write_text(TWO_PLAYERS)
    lines = tmp_path / "moves.jsonl"
    lines.write_text(script)
    db = tmp_path / name
    assert main(["play", "gaslands", "--setup", str(setup), "--script", str(lines), "--db", str(db), "--json"]) == 0
    return db


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


# -- one writer per log ------------------------------------------------------------------------------

HOLDER = """
import sys
from device.store import Store
store = Store(sys.argv[1])
print("ready", flush=True)
sys.stdin.readline()
store.close()
"""


def test_a_second_writer_process_is_refused_before_anything_is_written(tmp_path, capsys):
    db = make_log(tmp_path)
    capsys.readouterr()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(db)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "ready\n"
        before = digest(db)
        with pytest.raises(StoreError, match=rf"in use by .*\(PID {holder.pid}\)"):
            Store(db)
        script = tmp_path / "more.jsonl"
        script.write_text('{"type": "skid_roll", "faces": []}\n')
        code, out, err = run(capsys, "play", "gaslands", "--script", str(script), "--db", str(db), "--json")
        assert code == 2 and f"PID {holder.pid}" in err and str(db) in err and out == ""
        assert digest(db) == before
        # reading is not writing: the log can be listed meanwhile
        code, out, _ = run(capsys, "log", "list", "--db", str(db))
        assert code == 0 and json.loads(out.splitlines()[0])["id"] == 1
    finally:
        holder.communicate("\n", timeout=30)
    assert not lock_path(db).exists()
    with Store(db) as store:  # the holder is gone: the log is free again
        assert store.latest_unfinished("gaslands") == 1


def test_a_second_writer_in_the_same_process_is_refused_and_the_lock_goes_with_the_store(tmp_path):
    db = tmp_path / "g.sqlite"
    first = Store(db)
    with pytest.raises(StoreError, match="this log is in use by"):
        Store(db)
    first.close()
    Store(db).close()
    assert not lock_path(db).exists()


# -- read-only, locked, full ---------------------------------------------------------------------------


def _mount(args: list[str]) -> None:
    result = subprocess.run(["mount", *args], capture_output=True, text=True)
    if result.returncode != 0:
        pytest.skip(f"mounting is not allowed here: {result.stderr.strip()}")


@pytest.fixture
def read_only_copy(tmp_path):
    """A folder holding a copy of a log, bind-mounted read-only."""
    db = make_log(tmp_path)
    src, ro = tmp_path / "src", tmp_path / "ro"
    src.mkdir()
    ro.mkdir()
    shutil.copy(db, src / db.name)
    _mount(["--bind", str(src), str(ro)])
    try:
        _mount(["-o", "remount,ro,bind", str(ro)])
        with pytest.raises(OSError):
            (ro / "probe").write_text("x")  # root cannot write here: really read-only
        yield ro / db.name
    finally:
        subprocess.run(["umount", str(ro)], check=False)


def test_a_log_on_a_read_only_mount_is_read_and_playing_says_why_not(read_only_copy, capsys):
    db = read_only_copy
    before = digest(db)
    code, out, _ = run(capsys, "log", "list", "--db", str(db))
    assert code == 0 and json.loads(out)["events"] > 0
    code, out, _ = run(capsys, "log", "export", "--db", str(db))
    assert code == 0 and json.loads(out.splitlines()[0])["type"] == "game_started"
    script = db.parent.parent / "more.jsonl"
    script.write_text('{"type": "skid_roll", "faces": []}\n')
    code, out, err = run(capsys, "play", "gaslands", "--script", str(script), "--db", str(db))
    assert code == 2 and str(db) in err and "damaged" not in err
    assert "cannot be written here" in err and "log list/export" in err and "writable folder" in err
    assert digest(db) == before


def test_reading_opens_sqlite_read_only_and_changes_nothing(tmp_path, capsys):
    """Without a mount: a reader takes no lock, opens in SQLite's mode=ro, and leaves the file as it was."""
    db = make_log(tmp_path)
    before = digest(db)  # (a WAL log read read-only may keep its -wal/-shm beside it: SQLite's own)
    with Store(db, read_only=True) as store:
        assert store._db is not None
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            store._db.execute("DELETE FROM events")
        assert not lock_path(db).exists()
    run(capsys, "log", "list", "--db", str(db))
    run(capsys, "log", "export", "--db", str(db))
    assert digest(db) == before


def test_a_log_locked_by_another_program_is_called_locked_not_damaged(tmp_path, monkeypatch):
    db = make_log(tmp_path)
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT", 0.2)
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("PRAGMA locking_mode=EXCLUSIVE")
    other.execute("BEGIN EXCLUSIVE")
    other.execute("UPDATE games SET title = title")
    try:
        with pytest.raises(StoreError, match="locked by another program") as caught:
            Store(db)
        assert "damaged" not in str(caught.value) and str(db) in str(caught.value)
    finally:
        other.execute("ROLLBACK")
        other.close()
    Store(db).close()


@pytest.fixture
def full_disk(tmp_path):
    """A small tmpfs filled up to its last bytes."""
    disk = tmp_path / "disk"
    disk.mkdir()
    _mount(["-t", "tmpfs", "-o", "size=256k", "tmpfs", str(disk)])
    try:
        yield disk
    finally:
        subprocess.run(["umount", str(disk)], check=False)


def _fill(disk: Path) -> None:
    fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        for size in (4096, 512, 1):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError:
                pass
    finally:
        os.close(fd)


def test_a_full_disk_is_called_full(full_disk, tmp_path, capsys):
    setup = tmp_path / "setup.toml"
    setup.write_text(TWO_PLAYERS)
    _fill(full_disk)
    db = full_disk / "new.sqlite"
    code, _, err = run(capsys, "play", "gaslands", "--setup", str(setup), "--db", str(db))
    assert code == 2 and "is full" in err and "free some space" in err and str(db) in err
    assert "damaged" not in err


def test_a_healthy_log_on_a_full_disk_is_not_called_damaged(full_disk, tmp_path, capsys):
    db = make_log(tmp_path)
    shutil.copy(db, full_disk / db.name)
    db = full_disk / db.name
    before = digest(db)
    _fill(full_disk)
    script = tmp_path / "more.jsonl"
    script.write_text('{"type": "skid_roll", "faces": []}\n')
    code, out, err = run(capsys, "play", "gaslands", "--script", str(script), "--db", str(db), "--json")
    assert code == 2 and "damaged" not in err and "is full" in err and "free some space" in err and str(db) in err
    code, out, err = run(capsys, "log", "list", "--db", str(db))  # reading still works
    assert code == 0 and json.loads(out)["id"] == 1, err
    assert digest(db) == before



def test_a_disk_that_fills_mid_game_is_called_full_and_the_game_goes_on_once_space_is_freed(full_disk, tmp_path):
    # seen: 'could not write to the game log games.sqlite: database or disk is full; nothing of this step was
    # recorded' on the players' screen: SQLite's words, and nothing said what to do
    import tomllib

    from games import game_package
    from games.core import Command

    module = game_package("gaslands")
    store = Store(full_disk / "games.sqlite")
    try:
        _, match, _ = store.open_match(module.GAME, tomllib.loads(TWO_PLAYERS))
        first = match.apply(Command.from_json({"type": "choose_template", "template": "short_straight"}))
        assert first.accepted
        kept = len(match.records)
        _fill(full_disk)
        with pytest.raises(StoreError) as caught:
            match.apply(Command.from_json({"type": "place_template"}))
        said = str(caught.value)
        assert "is full" in said and "free some space" in said and "database or disk is full" not in said[:40], said
        assert len(match.records) == kept
        (full_disk / "filler").unlink()
        assert match.apply(Command.from_json({"type": "place_template"})).accepted
    finally:
        store.close()
    reader = Store(full_disk / "games.sqlite", read_only=True)
    try:
        assert [g.events for g in reader.games()] == [kept + 1]
    finally:
        reader.close()

# -- another program's files ---------------------------------------------------------------------------


def test_log_list_leaves_another_programs_database_as_it_was(tmp_path, capsys):
    other = tmp_path / "recipes.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE recipes (name TEXT)")
    db.execute("INSERT INTO recipes VALUES ('soup')")
    db.commit()
    db.close()
    (tmp_path / "setup.toml").write_text(TWO_PLAYERS)
    before, files = digest(other), siblings(other)
    for argv in (["log", "list", "--db", str(other)], ["log", "export", "--db", str(other)],
                 ["play", "gaslands", "--setup", str(tmp_path / "setup.toml"), "--db", str(other)]):
        code, out, err = run(capsys, *argv)
        assert code == 2 and "another program's SQLite database" in err and "left untouched" in err
    assert digest(other) == before and siblings(other) == files  # no -wal, no -shm, no lock file
    assert sqlite3.connect(other).execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def test_a_damaged_log_played_without_a_setup_is_not_told_to_give_one(tmp_path, capsys):
    # seen: '... start a new log (another --db; the appliance: [store] path in pitboard.toml).; give --setup to
    # start one': a setup would not mend a damaged log
    db = make_log(tmp_path)
    with open(db, "r+b") as fh:
        fh.seek(8200)
        fh.write(b"garbage!" * 3)
    before = digest(db)
    script = tmp_path / "more.jsonl"
    script.write_text('{"type": "skid_roll", "faces": []}\n')
    code, _, err = run(capsys, "play", "gaslands", "--script", str(script), "--db", str(db))
    assert code == 2 and "damaged" in err and "--setup" not in err and ".;" not in err, err
    assert digest(db) == before

def test_a_journal_left_beside_the_log_is_named_not_called_read_only(tmp_path, capsys):
    # seen: a games.sqlite-journal left by a write cut short (another program, another version) made `play`
    # say "is read-only here (attempt to write a readonly database)" of a writable log in a writable folder,
    # and advise copying the log "with any -wal file" - without the journal that write needs rolled back
    db = make_log(tmp_path)
    journal = db.with_name(db.name + "-journal")
    journal.write_bytes(bytes(range(1, 256)) * 12)  # a first byte not 0: SQLite takes it for a hot journal
    before = digest(db), digest(journal)
    script = tmp_path / "more.jsonl"
    script.write_text('{"type": "skid_roll", "faces": []}\n')
    code, _, err = run(capsys, "play", "gaslands", "--script", str(script), "--db", str(db))
    assert code == 2 and "read-only here" not in err, err
    assert journal.name in err and "cut short" in err and "PRAGMA integrity_check" in err, err
    assert (digest(db), digest(journal)) == before

def test_a_journal_left_beside_the_log_stops_its_readers_too(tmp_path, capsys):
    # seen: with such a journal, `log list` and `log export` read the log as it lay (SQLite's immutable read,
    # the fallback for a log on a read-only card, does not look at the journal): half of the write cut short
    # could have been shown as the game
    db = make_log(tmp_path)
    journal = db.with_name(db.name + "-journal")
    journal.write_bytes(bytes(range(1, 256)) * 12)
    before = digest(db), digest(journal)
    capsys.readouterr()  # the game's own moves, as make_log played them
    for args in (["log", "list", "--db", str(db)], ["log", "export", "--db", str(db)]):
        code, out, err = run(capsys, *args)
        assert code == 2 and not out, (args, out)
        assert journal.name in err and "cut short" in err and "PRAGMA integrity_check" in err, err
    assert (digest(db), digest(journal)) == before


def test_an_empty_file_or_an_empty_database_gets_no_schema(tmp_path, capsys):
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    code, _, err = run(capsys, "play", "gaslands", "--db", str(empty))  # no setup: refused
    assert code == 2 and "no setup was given" in err
    assert empty.read_bytes() == b"" and not lock_path(empty).exists()
    bare = tmp_path / "bare.sqlite"
    db = sqlite3.connect(bare)
    db.execute("VACUUM")  # an SQLite file with nothing in it
    db.close()
    before = digest(bare)
    (tmp_path / "setup.toml").write_text(TWO_PLAYERS)
    code, _, err = run(capsys, "play", "gaslands", "--setup", str(tmp_path / "setup.toml"), "--db", str(bare))
    assert code == 2 and "no Pitboard tables" in err and digest(bare) == before
    # a 0-byte file (as `pitboard sim` leaves it) becomes a log when a game is begun
    code, _, _ = run(capsys, "play", "gaslands", "--setup", str(tmp_path / "setup.toml"), "--db", str(empty))
    assert code == 0 and empty.stat().st_size > 0


def test_a_missing_log_is_not_created_by_reading(tmp_path, capsys):
    typo = tmp_path / "typo" / "path.sqlite"
    for what in ("list", "export"):
        code, out, err = run(capsys, "log", what, "--db", str(typo))
        assert code == 2 and "there is no game log" in err and str(typo) in err and out == ""
    assert not (tmp_path / "typo").exists()


@pytest.mark.parametrize("game_id", ["999", "-5", "0", "99999999999999999999999"])  # the last: a traceback once
def test_export_of_a_game_that_is_not_there_says_so(tmp_path, capsys, game_id):
    db = make_log(tmp_path)
    capsys.readouterr()
    code, out, err = run(capsys, "log", "export", "--db", str(db), "--game-id", game_id)
    assert code == 2 and out == "" and f"holds no game {game_id}" in err and "its games: 1" in err


# -- script lines ------------------------------------------------------------------------------------


def test_a_line_that_is_not_utf8_is_told_by_its_own_number(tmp_path, capsys):
    setup = tmp_path / "setup.toml"
    setup.write_text(TWO_PLAYERS)
    script = tmp_path / "s.jsonl"
    script.write_bytes(b'{"type": "choose_template", "template": "gentle"}\n{"type": "place_\xff"}\n')
    db = tmp_path / "g.sqlite"
    code, out, err = run(capsys, "play", "gaslands", "--setup", str(setup), "--script", str(script), "--db", str(db))
    assert code == 2 and "s.jsonl:2: not UTF-8" in err and "Nothing of the script was applied" in err
    assert not db.exists()  # the script is read whole before the log is opened: no game was begun
    code, out, err = run(capsys, "play", "gaslands", "--setup", str(setup), "--db", str(db))
    assert code == 0
    script.write_bytes(b'\xfe{"type": "place_template"}\n')
    before = digest(db)
    code, out, err = run(capsys, "play", "gaslands", "--script", str(script), "--db", str(db))
    assert code == 2 and "s.jsonl:1: not UTF-8" in err and "Nothing of the script was applied" in err
    assert digest(db) == before


# -- hand-edited logs ----------------------------------------------------------------------------------


def _edit(db: Path, *sql: str) -> str:
    con = sqlite3.connect(db)
    for statement in sql:
        con.execute(statement)
    con.commit()
    con.close()
    return digest(db)


EDITS = {
    "dropped table": (["DROP TABLE events"], "table `events` is missing"),
    "dropped column": (["ALTER TABLE games DROP COLUMN finished"], "column finished of `games` is missing"),
    "data not an object": (["UPDATE events SET data = '[1, 2]' WHERE seq = 2"], "event 2 of game 1 has data that is not a JSON object"),
    "data not JSON": (["UPDATE events SET data = '{oops' WHERE seq = 2"], "event 2 of game 1 is not valid JSON"),
    # another SQLite tool can store the data as a BLOB of bytes that are not UTF-8 (a traceback before)
    "data a BLOB": (["UPDATE events SET data = x'ff00ff' WHERE seq = 2"], "event 2 of game 1 is not valid JSON"),
    # nested deeper than Python reads, a number longer than it reads (an audit: a traceback in play, log export and sim)
    "data nested too deep": ([f"UPDATE events SET data = '{{\"a\": {'[' * 3000}{']' * 3000}}}' WHERE seq = 2"],
                             "event 2 of game 1 is not valid JSON"),
    "data a number too long": ([f"UPDATE events SET data = '{{\"a\": {'9' * 5000}}}' WHERE seq = 2"],
                               "event 2 of game 1 is not valid JSON"),
    "wrong first event": (["DELETE FROM events WHERE seq = 1"], "game 1 cannot be replayed"),
    "first event of another kind": (["UPDATE events SET type = 'template_chosen' WHERE seq = 1"],
                                    "game 1 cannot be replayed"),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_a_hand_edited_log_is_told_clearly_and_left_as_it_is(tmp_path, capsys, edit):
    db = make_log(tmp_path)
    capsys.readouterr()
    sql, expected = EDITS[edit]
    before = _edit(db, *sql)
    script = tmp_path / "more.jsonl"
    script.write_text('{"type": "skid_roll", "faces": []}\n')
    code, out, err = run(capsys, "play", "gaslands", "--script", str(script), "--db", str(db), "--json")
    assert code == 2 and expected in err and str(db) in err, err
    assert "Nothing was changed" in err or "left untouched" in err
    assert digest(db) == before and not lock_path(db).exists()


@pytest.mark.parametrize("sql", ["UPDATE events SET data = x'ff00ff' WHERE seq = 2",
                                 "UPDATE events SET type = x'ff00ff', data = x'7b7d' WHERE seq = 2"])
def test_export_shows_a_blob_as_it_is_stored(tmp_path, capsys, sql):
    db = make_log(tmp_path)
    capsys.readouterr()
    before = _edit(db, sql)
    code, out, err = run(capsys, "log", "export", "--db", str(db), "--game-id", "1")
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[0]["type"] == "game_started" and len(lines) > 2
    assert "ff" in json.dumps(lines[1])  # the bytes, as they are
    assert digest(db) == before


def test_export_into_a_closed_pipe_ends_quietly(tmp_path):
    """`pitboard log export | head -1`: the reader stops reading; Python's BrokenPipeError traceback was shown."""
    db = make_log(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    _edit(db, "INSERT INTO events SELECT game_id, 100000 + x, decision, type, data, recorded FROM events, "  # a log
              "(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000) SELECT x FROM c) "
              "WHERE seq = 1")  # long enough to outlast the pipe's buffer
    proc = subprocess.run(f"{sys.executable} -m device.cli log export --db {db} | head -c 10", shell=True,
                          capture_output=True, text=True, env=env, cwd=REPO)
    assert len(proc.stdout) == 10 and "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr


@pytest.mark.parametrize("data", ["{oops", '{"a": ' + "[" * 3000 + "]" * 3000 + "}"], ids=["broken", "too deep"])
def test_export_shows_an_undecodable_event_as_it_is_stored(tmp_path, capsys, data):
    db = make_log(tmp_path)
    capsys.readouterr()
    before = _edit(db, f"UPDATE events SET data = '{data}' WHERE seq = 2")
    code, out, err = run(capsys, "log", "export", "--db", str(db), "--game-id", "1")
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and "event 2: its data is not valid JSON" in err and str(db) in err
    assert lines[1]["data_text"] == data and lines[1]["error"].startswith("not valid JSON")
    assert lines[0]["type"] == "game_started" and len(lines) > 2  # the rest is exported too
    assert digest(db) == before


OLD_WRITER = """
import os, sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")  # the order of Pitboard before this change: WAL first, then the schema
from device.store import _SCHEMA, APPLICATION_ID
db.executescript(f"BEGIN IMMEDIATE; {_SCHEMA} PRAGMA application_id={APPLICATION_ID}; PRAGMA user_version=1; COMMIT;")
db.execute("INSERT INTO games (game, created) VALUES ('gaslands', 'x')")
os._exit(0)  # killed: the marks are still in the -wal file
"""


def test_a_log_whose_marks_are_still_in_its_wal_opens(tmp_path):
    db = tmp_path / "old.sqlite"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    subprocess.run([sys.executable, "-c", OLD_WRITER, str(db)], check=True, env=env)
    assert int.from_bytes(db.read_bytes()[68:72], "big") == 0
    with Store(db, read_only=True) as store:
        assert [g.id for g in store.games()] == [1]
    with Store(db) as store:
        assert [g.id for g in store.games()] == [1]


def test_a_new_log_on_a_read_only_mount_is_not_said_to_be_readable(read_only_copy, capsys):
    """Seen: `play --db ro/new.sqlite` said the missing file "can still be read with pitboard log list/export",
    and check called a read-only filesystem "cannot be written by this user"."""
    from device.cli_device import _probe_store
    from device.config import PitboardConfig, StoreConfig

    new = read_only_copy.parent / "new.sqlite"
    code, out, err = run(capsys, "play", "gaslands", "--db", str(new), "--new")
    assert code == 2 and "cannot be made here" in err and "read-only filesystem" in err
    assert "can still be read" not in err and not new.exists()
    line = _probe_store(PitboardConfig(store=StoreConfig(path=new)))
    assert line.status == "FAIL" and "mounted read-only" in line.detail and "this user" not in line.detail
    line = _probe_store(PitboardConfig(store=StoreConfig(path=read_only_copy)))
    assert line.status == "FAIL" and "mounted read-only" in line.detail


def test_an_empty_log_beside_its_wal_file_is_refused_and_the_wal_kept(tmp_path, capsys):
    """A log emptied (or not copied) beside the -wal file a crash left: the -wal holds its games, and SQLite
    deletes a -wal beside a 0-byte database as soon as it opens it. Play, sim, log and check refuse it."""
    live = Store(tmp_path / "live.sqlite")
    live.begin_game("gaslands", list(GAME.start({"players": [
        {"name": "A", "vehicles": [{"type": "buggy"}]}, {"name": "B", "vehicles": [{"type": "car"}]}]})))
    wal = tmp_path / "crashed.sqlite-wal"
    shutil.copy(tmp_path / "live.sqlite-wal", wal)  # a crash: the game is in the -wal, not yet in the file
    live.close()
    assert wal.stat().st_size > 0
    db = tmp_path / "crashed.sqlite"
    db.write_bytes(b"")
    before = digest(wal)
    (tmp_path / "setup.toml").write_text(TWO_PLAYERS)
    for args in (["play", "gaslands", "--setup", str(tmp_path / "setup.toml"), "--db", str(db)],
                 ["log", "list", "--db", str(db)], ["sim", "gaslands", "--db", str(db), "--keys", "o"]):
        code, out, err = run(capsys, *args)
        assert code == 2 and "empty (0 bytes) but crashed.sqlite-wal beside it" in err, (args, out, err)
        assert digest(wal) == before and db.read_bytes() == b"", args
    db.unlink()  # the main file not copied at all
    code, _, err = run(capsys, "log", "list", "--db", str(db))
    assert code == 2 and "is missing but crashed.sqlite-wal" in err and digest(wal) == before
    cfg = tmp_path / "pitboard.toml"
    cfg.write_text(f'[store]\npath = "{db}"\n')
    code, out, _ = run(capsys, "check", "--config", str(cfg))
    assert f"FAIL  game log: {db} is missing but crashed.sqlite-wal beside it" in out, out
    assert digest(wal) == before


def test_a_folder_in_the_lock_files_place_is_named(tmp_path, capsys):
    """A folder called LOG-lock was blamed on the log: "cannot open the game log lk.sqlite: Is a directory"."""
    db = make_log(tmp_path, "lk.sqlite")
    before = digest(db)
    lock_path(db).mkdir()
    script = tmp_path / "more.jsonl"
    script.write_text('{"type": "place_template"}\n')
    code, _, err = run(capsys, "play", "gaslands", "--script", str(script), "--db", str(db))
    assert code == 2 and f"{lock_path(db)} is a folder where the game log's lock file belongs" in err, err
    assert digest(db) == before


def test_a_damaged_log_gets_no_side_files_from_the_probe(tmp_path, capsys):
    """A log cut short (its first 8000 bytes) was "left untouched", yet an empty -wal and a 32 KB -shm stood
    beside it afterwards: the read-only probe made them. They go with the refusal."""
    db = make_log(tmp_path)
    cut = tmp_path / "cut.sqlite"
    cut.write_bytes(db.read_bytes()[:8000])
    before = digest(cut)
    script = tmp_path / "more.jsonl"
    script.write_text('{"type": "place_template"}\n')
    code, _, err = run(capsys, "play", "gaslands", "--script", str(script), "--db", str(cut))
    assert code == 2 and "damaged" in err, err
    assert digest(cut) == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("cut.sqlite")) == ["cut.sqlite"]


@pytest.mark.parametrize("verb", ["list", "export"])
def test_reading_a_damaged_log_leaves_no_side_files(tmp_path, capsys, verb):
    """`log list` / `log export` on a log cut short said "damaged" and left an empty -wal and a -shm beside it:
    the read-only look made them, and the refusal said the log was left untouched."""
    db = make_log(tmp_path)
    cut = tmp_path / "cut.sqlite"
    cut.write_bytes(db.read_bytes()[:8000])
    before = digest(cut)
    code, _, err = run(capsys, "log", verb, "--db", str(cut))
    assert code == 2 and "damaged" in err, err
    assert digest(cut) == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("cut.sqlite")) == ["cut.sqlite"]


def test_a_refused_read_only_look_never_takes_a_live_writers_side_files(tmp_path, monkeypatch):
    """Review: a reader takes no lock, so a writer may open the log while it looks: a refused look (here a newer
    Pitboard's log) deleted the -wal and -shm that writer had just made, and its commits were lost in a power
    cut.  The writer opens the log in the middle of the look here."""
    db = make_log(tmp_path)
    sql = sqlite3.connect(db)
    sql.execute("PRAGMA user_version=999")
    sql.commit()
    sql.close()
    sides = [tmp_path / "g.sqlite-wal", tmp_path / "g.sqlite-shm"]
    assert not any(f.exists() for f in sides)
    writers: list[sqlite3.Connection] = []
    real = Store._verify

    def a_writer_opens_meanwhile(self):
        if not writers:
            w = sqlite3.connect(db)  # opened, nothing written yet: its -wal is empty
            w.execute("PRAGMA journal_mode=WAL")
            w.execute("SELECT count(*) FROM sqlite_master").fetchone()
            writers.append(w)
        return real(self)

    monkeypatch.setattr(Store, "_verify", a_writer_opens_meanwhile)
    with pytest.raises(StoreError, match="newer Pitboard"):
        Store(db, read_only=True)
    assert all(f.exists() for f in sides)
    writers[0].execute("CREATE TABLE newer_things (x)")  # the writer goes on writing through them
    writers[0].commit()
    writers[0].close()


def test_a_log_refused_for_its_version_gets_no_side_files_either(tmp_path, capsys):
    """Review: the probe's -wal and -shm stayed beside a log refused as a newer Pitboard's ("left untouched")."""
    db = make_log(tmp_path)
    sql = sqlite3.connect(db)
    sql.execute("PRAGMA user_version=999")
    sql.commit()
    sql.close()
    before = digest(db)
    with pytest.raises(StoreError, match="newer Pitboard"):
        Store(db)
    assert digest(db) == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("g.sqlite")) == ["g.sqlite"]


def test_the_screens_words_for_a_log_beside_its_wal_or_journal_say_which(tmp_path):
    """The screens' few words said "missing beside its -wal file" for a 0-byte log and for a hot journal."""
    db = tmp_path / "x.sqlite"
    db.write_bytes(b"")
    (tmp_path / "x.sqlite-journal").write_bytes(b"\xd9\xd5\x05\xf9 a hot journal header" * 4)
    with pytest.raises(StoreError) as refused:
        Store(db)
    assert refused.value.short == "the game log is empty beside its journal file: see pitboard check"
    db.unlink()
    with pytest.raises(StoreError) as refused:
        Store(db, read_only=True)
    assert refused.value.short == "the game log is missing beside its journal file: see pitboard check"


def test_a_game_log_linked_to_a_file_not_made_yet_is_made_there(tmp_path: Path) -> None:
    """A review: the closed-folder check refused a game log that is a link to a file not made yet (a USB stick's
    log); sqlite makes it where the link points, as before."""
    from device.store import Store

    target = tmp_path / "stick" / "games.sqlite"
    target.parent.mkdir()
    link = tmp_path / "games.sqlite"
    link.symlink_to(target)
    store = Store(link)
    try:
        store.new_game("gaslands")
    finally:
        store.close()
    assert target.is_file() and target.stat().st_size > 0


def test_a_log_linked_to_a_drive_not_mounted_or_looping_is_named_so(tmp_path, capsys):
    """A bad-input audit: games.sqlite a link to a USB stick not mounted: check said "none yet (the first game
    writes it)", run refused the log as "damaged" and said to start a new one; a loop of links was "no game log"
    to `log list` and "[Errno 40]" to `sim`. A link to a folder that is there is where the first game writes."""
    from device.cli_device import _probe_store
    from device.config import PitboardConfig, StoreConfig

    away = tmp_path / "usb" / "games.sqlite"
    db = tmp_path / "games.sqlite"
    db.symlink_to(away)
    loop1, loop2 = tmp_path / "l1", tmp_path / "l2"
    loop1.symlink_to(loop2)
    loop2.symlink_to(loop1)
    not_there = f"is a symbolic link to {away}, whose folder {away.parent} is not there (a drive not mounted?)"
    commands = (lambda log: ["log", "list", "--db", log], lambda log: ["play", "gaslands", "--db", log],
                lambda log: ["sim", "gaslands", "--db", log, "--keys", "o"])
    for command in commands:
        code, _, err = run(capsys, *command(str(db)))
        assert code == 2 and not_there in err and "damaged" not in err, (command(str(db)), err)
        code, _, err = run(capsys, *command(str(loop1)))
        assert code == 2 and "leads back to itself (a loop of links)" in err, (command(str(loop1)), err)
    assert not away.parent.exists()
    line = _probe_store(PitboardConfig(store=StoreConfig(path=db)))
    assert line.status == "FAIL" and not_there in line.detail
    away.parent.mkdir()  # mounted: the first game writes the log there
    assert _probe_store(PitboardConfig(store=StoreConfig(path=db))).status == "OK"
    with Store(db) as store:
        store.begin_game("gaslands", list(GAME.start({"players": [
            {"name": "A", "vehicles": [{"type": "buggy"}]}, {"name": "B", "vehicles": [{"type": "car"}]}]})))
    assert away.is_file() and db.is_symlink()


def test_a_log_path_that_is_a_pipe_or_a_device_is_named_so(tmp_path, capsys):
    """A bad-input audit: [store] path = "/dev/null" was "OK" to check (no game ever written), and a named pipe as
    --db was "the disk holding fifo/p failed (disk I/O error) ... Check the disk" to play."""
    from device.cli_device import _probe_store
    from device.config import PitboardConfig, StoreConfig

    pipe = tmp_path / "p"
    os.mkfifo(pipe)
    said = "is not a file but a named pipe, a socket or a device"
    with pytest.raises(StoreError, match=f"the game log {pipe} {said}"):
        Store(pipe)
    code, _, err = run(capsys, "play", "gaslands", "--db", str(pipe))
    assert code == 2 and said in err and "disk" not in err, err
    for path in (pipe, Path("/dev/null")):
        line = _probe_store(PitboardConfig(store=StoreConfig(path=path)))
        assert line.status == "FAIL" and said in line.detail, line


def test_a_read_only_log_file_is_refused_before_the_game_starts(tmp_path, capsys, monkeypatch):
    """A bad-input audit: `chmod 444 game.sqlite`: run resumed the game and its first move was NOT RECORDED
    (SQLite opens a read-only file for reading without a word). Refused at start now, the log unchanged; readers
    still read it. (os.access is stood in for: this runs as root, who may write anything.)"""
    db = make_log(tmp_path)
    before = digest(db)
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, *a, **k: False if Path(p) == db and mode == os.W_OK
                        else real(p, mode, *a, **k))
    with pytest.raises(StoreError, match=r"is read-only to this user: it can still be read .* Nothing was changed"):
        Store(db)
    code, _, err = run(capsys, "play", "gaslands", "--db", str(db))
    assert code == 2 and "is read-only to this user" in err
    with Store(db, read_only=True) as store:
        assert store.games()
    assert digest(db) == before


def test_a_log_marked_read_only_is_refused_even_to_root(tmp_path, capsys):
    """A bad-input audit: `chmod 444 game.sqlite`, and root played on, writing 3 events into it (root may write
    anything: os.access said yes). A log nobody may write is the owner's "do not change it"."""
    from device.cli_device import _probe_store
    from device.config import PitboardConfig, StoreConfig

    db = make_log(tmp_path)
    db.chmod(0o444)
    before = digest(db)
    script = tmp_path / "more.jsonl"
    script.write_text('{"type": "skid_roll", "faces": []}\n')
    code, _, err = run(capsys, "play", "gaslands", "--script", str(script), "--db", str(db))
    assert code == 2 and "is marked read-only (no write permission for anyone)" in err and "chmod u+w" in err
    line = _probe_store(PitboardConfig(store=StoreConfig(path=db)))
    assert line.status == "FAIL" and "run could not record a move: it is marked read-only" in line.detail
    with Store(db, read_only=True) as store:
        assert store.games()
    assert digest(db) == before


def test_check_warns_of_an_empty_log_file(tmp_path):
    """A bad-input audit: a 0-byte log (cut to nothing) was "OK … none yet (the first game writes it)"."""
    from device.cli_device import _probe_store
    from device.config import PitboardConfig, StoreConfig

    db = tmp_path / "game.sqlite"
    assert _probe_store(PitboardConfig(store=StoreConfig(path=db))).status == "OK"  # none yet: as before
    db.write_bytes(b"")
    line = _probe_store(PitboardConfig(store=StoreConfig(path=db)))
    assert line.status == "WARN" and "is empty (0 bytes): run begins a new game in it" in line.detail


def test_log_list_of_an_empty_log_says_it_holds_no_games(tmp_path, capsys):
    """A bad-input audit: `log list` of a log of 0 bytes printed nothing at all (exit 0), as a command that failed
    might; `log export` of it said "holds no games yet".  List says it too (on stderr: its lines stay JSON)."""
    db = tmp_path / "zero.sqlite"
    db.write_bytes(b"")
    code, out, err = run(capsys, "log", "list", "--db", str(db))
    assert code == 0 and out == "" and f"{db} holds no games yet" in err
    assert db.read_bytes() == b""


def test_play_beginning_a_game_beside_another_kinds_unfinished_one_says_so(tmp_path, capsys):
    """A bad-input audit: `play gaslands` on a log holding an unfinished Thunder Road game began a Gaslands game
    without a word, and `pitboard run` then resumes the Gaslands one (the newest).  Both are named."""
    db = tmp_path / "g.sqlite"
    setup = tmp_path / "tr.toml"
    from games import thunder_road

    setup.write_text(thunder_road.EXAMPLE_SETUP)
    empty = tmp_path / "none.jsonl"
    empty.write_text("")
    assert run(capsys, "play", "thunder_road", "--setup", str(setup), "--script", str(empty), "--db", str(db))[0] == 0
    make_log(tmp_path, "g.sqlite", "")
    err = capsys.readouterr().err
    assert (f"began gaslands game 2 in {db}; it also holds the unfinished thunder_road game 1, which stays there "
            "(`pitboard play GAME` resumes a game of its kind; `pitboard run` resumes the newest unfinished game, "
            "this one)") in err
    make_log(tmp_path, "g.sqlite", "")  # resumed: nothing begun, nothing said
    assert "began" not in capsys.readouterr().err


def test_an_event_cut_in_half_is_not_said_to_be_a_hand_edit_alone(tmp_path, capsys):
    """A bad-input audit: an event whose JSON is cut short was said to be "edited by hand" (a cause asserted):
    SQLite writes a decision whole or not at all, so it is a hand edit or damage on the card."""
    db = make_log(tmp_path)
    with sqlite3.connect(db) as con:
        con.execute("UPDATE events SET data = substr(data, 1, 5) WHERE seq = (SELECT max(seq) FROM events)")
    con.close()
    before = digest(db)
    empty = tmp_path / "none.jsonl"
    empty.write_text("")
    code, _, err = run(capsys, "play", "gaslands", "--script", str(empty), "--db", str(db))
    assert code == 2 and "is not valid JSON" in err
    assert "the log was edited by hand, or damaged on its card (a decision is written whole or not at all)" in err
    assert digest(db) == before
