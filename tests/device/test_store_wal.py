"""A game log's -wal file with decisions SQLite will not read (a damaged frame before them) is kept and told.

An audit: one byte changed in frame 3 of a crash's 14-frame -wal (a failing SD card) hid the six decisions
recorded after it; `check` said OK, `log list` counted the earlier ones, and `play` resumed from them and deleted
the file. Those decisions were whole: the byte put back, all were read."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest

from device.store import Store, StoreError
from device.wal_scan import FRAME_HEADER, HEADER, scan
from games.core import Command
from games.gaslands import GAME

SETUP = {"players": [{"name": "A", "vehicles": [{"type": "buggy"}]}, {"name": "B", "vehicles": [{"type": "car"}]}]}


def crashed(tmp_path: Path, decisions: int = 8) -> tuple[Path, int]:
    """A log as a power cut leaves it: its newest decisions (a car set on fire and put out, in turn) in its -wal
    file. (path, events recorded)."""
    live = Store(tmp_path / "live.sqlite")
    game_id, match, _ = live.open_match(GAME, SETUP)
    first = len(live.records(game_id))
    vehicle = match.state.vehicles[0].id
    for k in range(decisions):
        assert match.apply(Command("set_fire", {"vehicle": vehicle, "on": k % 2 == 0})).accepted
    out = tmp_path / "crash"
    out.mkdir()
    for end in ("", "-wal"):
        shutil.copy(tmp_path / f"live.sqlite{end}", out / f"game.sqlite{end}")
    live.close()
    return out / "game.sqlite", first + decisions


def page_size(wal: Path) -> int:
    return int(struct.unpack(">I", wal.read_bytes()[8:12])[0])


def damage(wal: Path, frame: int) -> None:
    """One byte of frame ``frame``'s page changed (frames count from 1)."""
    data = bytearray(wal.read_bytes())
    at = HEADER + (frame - 1) * (FRAME_HEADER + page_size(wal)) + FRAME_HEADER + 100
    data[at] ^= 0xFF
    wal.write_bytes(bytes(data))


def test_a_crash_wal_is_read_whole_and_nothing_is_kept(tmp_path):
    """A -wal file a crash left is what SQLite reads, every frame (the checksums summed as SQLite sums them)."""
    db, recorded = crashed(tmp_path)
    wal = db.with_name("game.sqlite-wal")
    s = scan(wal.read_bytes())
    assert s.frames > 8 and s.read == s.frames and s.unread_commits == 0
    with Store(db) as store:
        assert store.wal_note is None and len(store.records(1)) == recorded
    assert not list(db.parent.glob("*.damaged-*"))


def test_a_decision_cut_short_by_a_power_cut_is_no_damage(tmp_path):
    """The last frame half written (power lost mid-commit): that decision was never recorded, nothing else lost."""
    db, recorded = crashed(tmp_path)
    wal = db.with_name("game.sqlite-wal")
    data = wal.read_bytes()
    wal.write_bytes(data[:-(page_size(wal) // 2)])
    s = scan(wal.read_bytes())
    assert s.unread_commits == 0 and s.read == s.frames - 1
    with Store(db) as store:
        assert store.wal_note is None and len(store.records(1)) == recorded - 1


def test_decisions_after_a_damaged_frame_are_kept_in_a_copy_and_told(tmp_path):
    db, recorded = crashed(tmp_path)
    wal = db.with_name("game.sqlite-wal")
    damage(wal, 3)
    damaged = wal.read_bytes()
    lost = scan(damaged).unread_commits
    assert lost >= 5
    with Store(db, read_only=True) as store:  # check and log list: told, nothing written
        assert store.wal_note is not None and f"is damaged: {lost} decisions recorded after its damaged part" in \
            store.wal_note and "a copy of the file is kept then" in store.wal_note
        seen = len(store.records(1))
    assert seen < recorded and not list(db.parent.glob("*.damaged-*"))
    with Store(db, clock=lambda: "2026-12-06T07:55:01+00:00") as store:  # a writer: the copy first
        assert store.wal_note is not None and "A copy is kept as game.sqlite-wal.damaged-20261206075501" in \
            store.wal_note
        assert len(store.records(1)) == seen
    kept = db.with_name("game.sqlite-wal.damaged-20261206075501")
    assert kept.read_bytes() == damaged  # every decision of it, for whoever saves them
    # put back, the copy holds every decision: nothing recorded was lost for good
    repaired = bytearray(damaged)
    at = HEADER + 2 * (FRAME_HEADER + page_size(kept)) + FRAME_HEADER + 100
    repaired[at] ^= 0xFF
    whole = scan(bytes(repaired))
    assert whole.unread_commits == 0 and whole.read == whole.frames


def test_no_copy_no_opening(tmp_path, monkeypatch):
    """A copy that cannot be made (a full card): the log is refused, untouched, rather than opened and the
    decisions lost for good."""
    db, _ = crashed(tmp_path)
    wal = db.with_name("game.sqlite-wal")
    damage(wal, 3)
    before = wal.read_bytes()
    real_open = open

    def full(path, mode="r", *a, **k):
        if "x" in mode:
            raise OSError(28, "No space left on device")
        return real_open(path, mode, *a, **k)

    monkeypatch.setattr("builtins.open", full)
    with pytest.raises(StoreError, match=r"no copy of it could be kept as .*\(No space left on device\)\. It was "
                                         r"left untouched"):
        Store(db)
    monkeypatch.undo()
    assert wal.read_bytes() == before and not list(db.parent.glob("*.damaged-*"))


def test_check_log_list_play_and_the_next_check_say_it(tmp_path, capsys):
    from device.cli import main
    from device.cli_device import _probe_store
    from device.config import PitboardConfig, StoreConfig

    db, _ = crashed(tmp_path)
    wal = db.with_name("game.sqlite-wal")
    damage(wal, scan(wal.read_bytes()).frames - 4)  # the game begun before it: resumed
    config = PitboardConfig(store=StoreConfig(path=db))
    line = _probe_store(config)
    assert line.status == "WARN" and "is damaged: " in line.detail and "run resumes the unfinished" in line.detail
    assert main(["log", "list", "--db", str(db)]) == 0
    assert "warning: " in capsys.readouterr().err
    assert main(["play", "gaslands", "--db", str(db)]) == 0
    err = capsys.readouterr().err
    assert "warning: " in err and "A copy is kept as game.sqlite-wal.damaged-" in err
    line = _probe_store(config)  # the -wal read and gone: the copy beside the log is named until moved away
    assert line.status == "WARN" and "game.sqlite-wal.damaged-" in line.detail and "keep it until" in line.detail


def test_a_running_writers_wal_is_not_scanned_by_readers(tmp_path, monkeypatch):
    """The review: every read-only open (the phone's game log page, check beside the running appliance) summed the
    live -wal's checksums, seconds on a Pi for nothing: a running writer's -wal is no crash's. A lock file a crash
    left (its process gone) does not stop the scan."""
    import os

    import device.wal_scan as wal_scan
    from device.store import lock_path

    db, _ = crashed(tmp_path)
    wal = db.with_name("game.sqlite-wal")
    damage(wal, scan(wal.read_bytes()).frames - 4)
    scanned: list[int] = []
    real = wal_scan.scan
    monkeypatch.setattr(wal_scan, "scan", lambda data: scanned.append(len(data)) or real(data))
    lock_path(db).write_text(f"{os.getpid()} pitboard run\n")  # this process: running
    with Store(db, read_only=True) as store:
        assert store.wal_note is None and not scanned
    lock_path(db).write_text("999999999 pitboard run\n")  # no such process: a crash's lock
    with Store(db, read_only=True) as store:
        assert store.wal_note is not None and scanned


@pytest.mark.parametrize("bad", ["header", "salts"])
def test_a_damaged_header_hides_every_decision_of_the_file_and_is_kept_and_told(tmp_path, bad):
    """An audit: 32 random bytes over the -wal's header (or its salts alone) and SQLite read none of the file: `check`
    said OK, `log list` counted the 10 events of the main file, and `play` resumed from them and emptied the -wal,
    14 decisions gone, no copy kept and nothing said."""
    import random

    db, recorded = crashed(tmp_path)
    wal = db.with_name("game.sqlite-wal")
    whole = wal.read_bytes()
    frames, commits = scan(whole).frames, scan(whole).read
    data = bytearray(whole)
    if bad == "header":
        data[:HEADER] = random.Random(7).randbytes(HEADER)
    else:
        data[16:24] = bytes(b ^ 0x5A for b in data[16:24])
    wal.write_bytes(bytes(data))
    s = scan(bytes(data))
    assert s.header_damaged and s.read == 0 and s.frames == frames and s.unread_commits >= 8
    with Store(db, read_only=True) as store:  # check and log list: told
        assert store.wal_note is not None and "its header cannot be read, so" in store.wal_note
        seen = len(store.records(1))
    assert seen < recorded
    with Store(db, clock=lambda: "2026-12-06T18:30:00+00:00") as store:  # a writer keeps a copy first
        assert store.wal_note is not None and "A copy is kept as game.sqlite-wal.damaged-20261206183000" in \
            store.wal_note
    assert db.with_name("game.sqlite-wal.damaged-20261206183000").read_bytes() == bytes(data)
    assert commits > 0


def test_no_header_damage_is_seen_in_a_wal_sqlite_wrote_or_in_an_empty_one(tmp_path):
    db, _ = crashed(tmp_path)
    assert not scan(db.with_name("game.sqlite-wal").read_bytes()).header_damaged
    assert scan(b"") == scan(b"\0" * HEADER) == scan(b"\0" * 20) == scan(b"\0" * 40_000)
    assert not scan(b"").header_damaged


def test_a_damaged_wal_met_again_is_not_copied_again(tmp_path):
    """A review: starts that end before the first move (a restart loop, a power cut) met the same damaged -wal
    each time and kept a copy each time."""
    db, _ = crashed(tmp_path)
    wal = db.with_name("game.sqlite-wal")
    damage(wal, 3)
    damaged, main = wal.read_bytes(), db.read_bytes()
    with Store(db, clock=lambda: "2026-12-06T07:55:01+00:00") as store:
        assert store.wal_note is not None
    db.write_bytes(main)  # as the crash before the first move left them
    wal.write_bytes(damaged)
    with Store(db, clock=lambda: "2026-12-06T08:10:00+00:00") as store:
        assert store.wal_note is not None and "A copy is kept as game.sqlite-wal.damaged-20261206075501" in \
            store.wal_note
    assert [p.name for p in db.parent.glob("*.damaged-*")] == ["game.sqlite-wal.damaged-20261206075501"]
