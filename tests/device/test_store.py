"""The game log: durable before shown, resumable after a kill at any moment, undo, export, bad files."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from device.store import Store, StoreError
from games.core import Command, Event, Match, Record
from games.gaslands import GAME

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).parent))
import crash_writer  # noqa: E402


def test_wal_and_full_sync(tmp_path):
    store = Store(tmp_path / "log.sqlite")
    store.begin_game("gaslands", list(GAME.start(crash_writer.SETUP)))  # a new log is created by its first game
    assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_events_are_committed_before_the_state_changes(tmp_path):
    """The sink runs before the fold: a failing store means the state never shows the effect."""
    store = Store(tmp_path / "log.sqlite")
    gid = store.new_game("gaslands")
    match = Match.begin(GAME, crash_writer.SETUP, sink=store.sink(gid))
    before = match.state

    def broken_sink(decision, events):
        raise StoreError("disk full")

    match._sink = broken_sink
    with pytest.raises(StoreError):
        match.apply(Command("activate", {"vehicle": "ana-1"}))
    assert match.state == before


def _played(path, moves: int):  # type: ignore[no-untyped-def]
    """A log at ``path`` holding one Gaslands game played ``moves`` commands in (closed): (game id, match)."""
    store = Store(path)
    gid = store.new_game("gaslands")
    match = Match.begin(GAME, crash_writer.SETUP, sink=store.sink(gid))
    for n in range(moves):
        match.apply(crash_writer.next_command(match, n))
    store.close()
    return gid, match


def test_resume_gives_the_same_state_and_undo_goes_back_to_the_start(tmp_path):
    path = tmp_path / "log.sqlite"
    gid, match = _played(path, 40)
    store2 = Store(path)
    resumed = Match(GAME, store2.records(gid), sink=store2.sink(gid))
    assert resumed.state == match.state
    undos = resumed.undoable
    assert undos > 0
    for _ in range(undos):
        assert resumed.apply(Command("undo")).accepted
    assert not resumed.apply(Command("undo")).accepted  # nothing before the start
    fresh = Match.begin(GAME, crash_writer.SETUP)
    assert resumed.state == fresh.state
    # the undos are in the log too: nothing recorded was lost
    assert len(store2.records(gid)) == len(match.records) + undos


def test_export_jsonl_has_every_event(tmp_path):
    store = Store(tmp_path / "log.sqlite")
    gid = store.new_game("gaslands")
    match = Match.begin(GAME, crash_writer.SETUP, sink=store.sink(gid))
    assert match.apply(Command("activate", {"vehicle": "ana-1"})).accepted
    assert match.apply(Command("undo")).accepted
    lines = [json.loads(line) for line in store.export_jsonl(gid)]
    assert [line["seq"] for line in lines] == list(range(1, len(match.records) + 1))
    assert lines[0]["type"] == "game_started" and lines[-1]["type"] == "undone"


def test_a_log_cut_short_says_how_to_save_what_can_still_be_read(tmp_path):
    """A bad-input audit: a log cut short (a power cut while copying it) was refused with "`sqlite3 FILE
    .recover` may save its games", but Bookworm's sqlite3 (3.40) answers .recover with "SQL logic error" even
    on a sound file.  The advice is .dump, which saves the events before the damage, and the -wal goes with it."""
    import shutil

    log = tmp_path / "games.sqlite"
    store = Store(log)
    gid = store.new_game("gaslands")
    match = Match.begin(GAME, crash_writer.SETUP, sink=store.sink(gid))
    for _ in range(40):
        assert match.apply(Command("activate", {"vehicle": "ana-1"})).accepted
        assert match.apply(Command("undo")).accepted
    store.close()
    size = log.stat().st_size
    with log.open("r+b") as fh:
        fh.truncate(size - 4096)  # the last page lost
    before = log.read_bytes()
    with pytest.raises(StoreError) as err:
        Store(log)
    said = str(err.value)
    assert "`sqlite3 FILE .dump > saved.sql` may save what can still be read" in said and ".recover" not in said
    assert "with its -wal and -shm files" in said
    assert log.read_bytes() == before
    if shutil.which("sqlite3"):  # the advice works where the appliance runs
        dumped = subprocess.run(["sqlite3", str(log), ".dump"], capture_output=True, text=True, timeout=60)
        assert dumped.stdout.count("INSERT INTO events") > 0, dumped.stderr


def test_a_file_that_is_not_a_log_is_refused_and_left_untouched(tmp_path):
    bad = tmp_path / "notes.sqlite"
    bad.write_bytes(b"these are my notes, not a database" * 100)
    before = bad.read_bytes()
    with pytest.raises(StoreError, match="not a Pitboard game log or is damaged"):
        Store(bad)
    assert bad.read_bytes() == before
    other = tmp_path / "other.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE recipes (name TEXT)")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="other tables"):
        Store(other)


def test_a_newer_log_version_is_refused(tmp_path):
    path = tmp_path / "log.sqlite"
    with Store(path) as store:
        store.begin_game("gaslands", list(GAME.start(crash_writer.SETUP)))
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version=99")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="newer Pitboard"):
        Store(path)


def test_an_event_that_cannot_be_replayed_is_reported_with_its_number(tmp_path):
    from device.cli import UserError
    from device.cli_games import open_match

    path = tmp_path / "log.sqlite"
    store = Store(path)
    gid = store.new_game("gaslands")
    Match.begin(GAME, crash_writer.SETUP, sink=store.sink(gid))
    store.append(gid, 5, [Event("teleported", {"vehicle": "x"})])
    with pytest.raises(UserError, match=r"event \d+ \(teleported\) cannot be replayed") as err:
        open_match("gaslands", store, None)
    assert len(store.records(gid)) > 1  # nothing was deleted
    # in words, without Python's class names (a bad-input audit: "CorruptLog: … ValueError: unknown Gaslands event")
    assert "unknown Gaslands event 'teleported'" in str(err.value) and "Error" not in str(err.value)
    # how to go on, and not by the phone page, which a run that cannot replay its log does not serve (an audit)
    assert str(err.value).endswith(f"begin a new game: `pitboard play gaslands --new --setup FILE --db {path}`; "
                                   "`pitboard run` then resumes that one")
    from device.cli_device import _probe_store
    from device.config import PitboardConfig, StoreConfig

    store.close()
    line = _probe_store(PitboardConfig(store=StoreConfig(path=path)))
    assert line.status == "FAIL" and "cannot be replayed" in line.detail and "Error" not in line.detail, line


KILLS = int(os.environ.get("PITBOARD_CRASH_KILLS", "200"))


def test_sigkill_at_random_moments_loses_nothing_reported(tmp_path):
    """Kill a writer with SIGKILL at random points, at least 200 times: every event it reported as committed
    is there after resume, the state it reported is the state folded from the log up to that event, and the
    database passes PRAGMA integrity_check."""
    path = tmp_path / "crash.sqlite"
    rng = random.Random(20261130)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(Path(__file__).parent)])}
    kills = 0
    total_reported = 0
    while kills < KILLS:
        proc = subprocess.Popen(
            [sys.executable, "-c", "import crash_writer, sys; crash_writer.main(sys.argv[1], 10**6)", str(path)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True,
        )
        assert proc.stdout is not None
        first = proc.stdout.readline()  # resumed and ready: now kill it somewhere in the next few writes
        if not first:
            raise AssertionError(f"kill {kills}: the writer died before resuming: {proc.communicate()[1]}")
        time.sleep(rng.uniform(0, 0.03))
        proc.send_signal(signal.SIGKILL)
        rest, errors = proc.communicate()
        assert proc.returncode == -signal.SIGKILL, f"kill {kills}: the writer stopped by itself: {errors}"
        kills += 1
        reported = [line.split() for line in (first + rest).splitlines() if line.count(" ") == 1]
        total_reported += len(reported)
        store = Store(path)
        try:
            assert store.integrity_check() == "ok"
            gid = store.latest_unfinished("gaslands")
            records = store.records(gid)
            last_seq, last_digest = int(reported[-1][0]), reported[-1][1]
            assert records[-1].seq >= last_seq, f"kill {kills}: reported {last_seq}, log ends at {records[-1].seq}"
            upto = [r for r in records if r.seq <= last_seq]
            assert crash_writer.digest(Match(GAME, upto).state) == last_digest
        finally:
            store.close()
    assert total_reported > KILLS  # the writer did make progress between kills


def test_a_game_row_left_without_events_by_a_crash_is_not_resumed(tmp_path):
    """A kill between creating the game and recording its first decision leaves nothing to resume."""
    store = Store(tmp_path / "log.sqlite")
    gid, _ = store.begin_game("gaslands", list(GAME.start(crash_writer.SETUP)))
    store.new_game("gaslands")  # the crash happened right after this
    assert store.latest_unfinished("gaslands") == gid


TWO_PLAYERS = (
    '[[players]]\nname = "A"\n[[players.vehicles]]\ntype = "buggy"\n'
    '[[players]]\nname = "B"\n[[players.vehicles]]\ntype = "car"\n'
)


def test_play_marks_a_finished_game_and_reports_a_resumed_one(tmp_path, capsys):
    from device.cli import main

    setup = tmp_path / "setup.toml"
    setup.write_text(TWO_PLAYERS)
    script = tmp_path / "s.jsonl"
    script.write_text('{"type": "choose_template", "template": "gentle"}\n')
    db = str(tmp_path / "g.sqlite")
    assert main(["play", "gaslands", "--setup", str(setup), "--script", str(script), "--db", db, "--json"]) == 0
    assert main(["play", "gaslands", "--setup", str(setup), "--script", str(script), "--db", db, "--json"]) == 0
    assert "resuming unfinished gaslands game 1" in capsys.readouterr().err
    script.write_text('{"type": "end_game", "winner": "A"}\n')
    assert main(["play", "gaslands", "--script", str(script), "--db", db, "--json"]) == 0
    with Store(db) as store:
        assert store.games()[0].finished and store.latest_unfinished("gaslands") is None


def test_a_script_with_a_bad_line_is_refused_whole_and_the_recorded_game_is_kept(tmp_path, capsys):
    from device.cli import main

    setup = tmp_path / "setup.toml"
    setup.write_text(TWO_PLAYERS)
    script = tmp_path / "s.jsonl"
    script.write_text('{"type": "choose_template", "template": "gentle"}\n{"type": "place_template"}\n')
    db = str(tmp_path / "g.sqlite")
    assert main(["play", "gaslands", "--setup", str(setup), "--script", str(script), "--db", db, "--json"]) == 0
    capsys.readouterr()
    with Store(db) as store:
        before = [r.event.type for r in store.records(1)]
    assert "template_chosen" in before

    # A good first line and a broken third: the script is checked whole, so nothing of it runs and the
    # message names the line; the game already in the log is untouched.
    script.write_text('{"type": "choose_template", "template": "gentle"}\n{"type": "place_template"}\n{oops\n')
    assert main(["play", "gaslands", "--script", str(script), "--db", db, "--json"]) == 2
    captured = capsys.readouterr()
    assert "s.jsonl:3" in captured.err and "Nothing of the script was applied" in captured.err
    assert not any(json.loads(line).get("accepted") for line in captured.out.splitlines() if line.strip())
    with Store(db) as store:
        assert [r.event.type for r in store.records(1)] == before

    script.write_bytes(b'{"type": "skid_roll", "faces": []}\n\xff\xfe\n')
    assert main(["play", "gaslands", "--script", str(script), "--db", db, "--json"]) == 2
    assert "not UTF-8" in capsys.readouterr().err
    with Store(db) as store:
        assert [r.event.type for r in store.records(1)] == before


def test_a_log_that_cannot_be_replayed_says_how_the_appliance_begins_another_game(tmp_path, capsys):
    """`pitboard run` and `check` said "or start a new game (--new)": run has no --new.  The advice names the
    command that does it, and that command works on this log."""
    from device.cli import main

    path = tmp_path / "log.sqlite"
    store = Store(path)
    gid = store.new_game("gaslands")
    Match.begin(GAME, crash_writer.SETUP, sink=store.sink(gid))
    store.close()
    db = sqlite3.connect(path)
    db.execute("UPDATE events SET data = 'not json' WHERE seq = (SELECT MAX(seq) FROM events)")
    db.commit()
    db.close()
    with Store(path) as store, pytest.raises(StoreError) as caught:
        store.open_match(GAME, None)
    said = str(caught.value)
    assert "(--new)" not in said and f"`pitboard play gaslands --new --setup FILE --db {path}`" in said
    from games.gaslands import EXAMPLE_SETUP

    setup = tmp_path / "table.toml"
    setup.write_text(EXAMPLE_SETUP, encoding="utf-8")
    assert main(["play", "gaslands", "--new", "--setup", str(setup), "--db", str(path)]) == 0
    with Store(path) as store:
        assert store.latest_unfinished("gaslands") == gid + 1  # what `pitboard run` resumes now


def test_new_without_a_setup_says_a_setup_is_what_is_missing(tmp_path, capsys):
    """Seen: `play --new` without --setup on a log holding an unfinished game said the log "holds no unfinished
    gaslands game"; it holds one, and --new asked not to resume it."""
    from device.cli import main

    db = tmp_path / "g.sqlite"
    script = tmp_path / "none.jsonl"
    script.write_text("", encoding="utf-8")
    from games.gaslands import EXAMPLE_SETUP

    setup = tmp_path / "table.toml"
    setup.write_text(EXAMPLE_SETUP, encoding="utf-8")
    assert main(["play", "gaslands", "--setup", str(setup), "--db", str(db), "--script", str(script)]) == 0
    capsys.readouterr()
    assert main(["play", "gaslands", "--new", "--db", str(db), "--script", str(script)]) == 2
    err = capsys.readouterr().err
    assert "holds no unfinished" not in err and "a new gaslands game begins from a setup" in err and "--setup FILE" in err


def test_bytes_slipped_into_a_page_are_found_not_read_as_no_events(tmp_path):
    """Four bytes inserted into a log (a copy gone wrong, a bad card) shifted a page: `log list` read "game 1:
    0 events" (or 55 of 66) with no error, and play would have resumed that. SQLite's quick check at opening
    finds it, and the log is refused as damaged, untouched."""
    good = tmp_path / "good.sqlite"
    _played(good, 30)
    data = good.read_bytes()
    offsets = range(4096, len(data) - 4096, 211)
    assert len(offsets) > 30
    for off in offsets:
        bad = tmp_path / f"bad{off}.sqlite"
        bad.write_bytes(data[:off] + b"\xff\xfe\xc3\x28" + data[off:])
        before = bad.read_bytes()
        for read_only in (True, False):
            with pytest.raises(StoreError, match="damaged"):
                Store(bad, read_only=read_only)
        assert bad.read_bytes() == before


def test_events_that_fold_into_a_state_nothing_can_show_are_refused_at_opening(tmp_path):
    """A turn given by hand to a player not at the table ("Anna") folded, then `pitboard run` crashed with a
    traceback where the screens were first drawn (a restart loop under systemd) and `check` said OK: the log is
    refused at opening, naming the last event and what is wrong, and left as it is."""
    from device.cli import UserError
    from device.cli_games import open_match
    from games.core import Command
    from games.thunder_road import GAME as TR

    path = tmp_path / "log.sqlite"
    store = Store(path)
    gid = store.new_game("thunder_road")
    m = Match.begin(TR, {"first_player": "Ana", "players": [{"name": "Ana"}, {"name": "Ben"}],
                         "board": {"tiles": 5, "on_board": 3}}, sink=store.sink(gid))
    for command in ({"type": "roll", "player": "Ana", "dice": [1, 2, 3, 4]},
                    {"type": "roll", "player": "Ben", "dice": [1, 2, 3, 4]}):
        assert m.apply(Command(command.pop("type"), command)).accepted
    last_turn = max(r.seq for r in store.records(gid) if r.event.type == "turn_started")
    store.close()
    con = sqlite3.connect(path)
    con.execute("UPDATE events SET data = ? WHERE seq = ?", (json.dumps({"player": "Anna"}), last_turn))
    con.commit()
    con.close()
    store = Store(path)
    before = len(store.records(gid))
    with pytest.raises(UserError, match=rf"game {gid} cannot be replayed \(the game as its events leave it \(up to event "
                                        rf"{last_turn}, turn_started\) cannot be shown: 'Anna' is missing, or is not a name"):
        open_match("thunder_road", store, None)
    assert len(store.records(gid)) == before  # nothing was deleted or written


def test_a_command_whose_events_the_state_cannot_take_writes_nothing():
    """An edited event can leave a state that folds but cannot take the next event (a turn number written as
    text): the next command's event was written, then failed to fold, and every later start crashed on it.  It
    is folded before it is written, and refused with nothing written."""
    from games.core import Command
    from games.space_race import GAME as SR

    written: list[Event] = []

    def sink(decision, events):
        start = len(written) + 1
        written.extend(events)
        return [Record(start + i, decision, e) for i, e in enumerate(events)]

    m = Match.begin(SR, {}, sink=sink)
    assert m.apply(Command("begin_turn", {})).accepted
    m._stack[-1] = (m._stack[-1][0], dataclasses.replace(m.state, turn="3"))  # what an edited event left
    before = len(written)
    outcome = m.apply(Command("end_turn", {}))
    assert not outcome.accepted and outcome.reason.startswith("NOT RECORDED: the game's state cannot take")
    assert len(written) == before
