"""`pitboard play` and `pitboard sim`: every argument is checked before a game is begun or anything is
written to the log, and what is wrong is named (the bad-input probe of the ``play``/``sim`` commands).

A script line with a field its command does not take is refused with the line, the field and the likeliest
meant one; a script that cannot be read, a bad ``--web`` address or a refused setup leaves no game and no
file behind; ``sim`` names the setup file as ``play`` does.
"""

from __future__ import annotations

import hashlib
import socket
from pathlib import Path

import pytest

from device.cli import main
from device.store import Store
from games import game_package

GASLANDS_SETUP = game_package("gaslands").EXAMPLE_SETUP


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(autouse=True)
def data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The data folder (sim's default log, the web page's files) away from the owner's and from tmp_path."""
    folder = tmp_path_factory.mktemp("data")
    monkeypatch.setenv("PITBOARD_DATA", str(folder))
    return folder


@pytest.fixture
def gas_setup(tmp_path: Path) -> Path:
    setup = tmp_path / "gas.toml"
    setup.write_text(GASLANDS_SETUP, encoding="utf-8")
    return setup


# -- 1. a field the command does not take -----------------------------------------------------------------


@pytest.mark.parametrize("game, lines, number, said", [
    ("gaslands", ['{"type": "undo", "step": 3}'], 1,
     "undo: unknown field 'step' (did you mean 'steps'?); the fields here are steps"),
    ("gaslands", ['{"type": "choose_template", "templat": "turn", "hand": "left"}'], 1,
     "choose_template: unknown field 'templat' (did you mean 'template'?); the fields here are edge, hand, template"),
    ("space_race", ['{"type": "begin_turn"}', '{"type": "attempt", "side": "USSR", "ops": 2, "dice": 4}'], 2,
     "attempt: unknown field 'dice' (did you mean 'die'?); the fields here are die, ops, side"),
    ("grand_tour", ['{"type": "cross", "ridr": "red.rouleur"}'], 1,
     "cross: unknown field 'ridr' (did you mean 'rider'?)"),
    ("gaslands", ['{"type": "place_template", "now": true}'], 1, "place_template: unknown field 'now'; it takes no fields"),
    ("gaslands", ['{"type": "activate"}', '{"type": "skid_rol", "faces": ["shift"]}'], 2,
     "unknown command 'skid_rol' (did you mean 'skid_roll'?). Nothing"),
    ("gaslands", ['{"type": "fly"}'], 1, "unknown command 'fly'; the commands are activate, attack,"),
    # a key said twice: Python kept the last, and the log recorded three HAZARD dice (a bad-input audit)
    ("gaslands", ['{"type": "skid_roll", "faces": ["SHIFT"], "faces": ["HAZARD", "HAZARD", "HAZARD"]}'], 1,
     "the key 'faces' appears twice in one object {...}, beside 'type' (read so, the second would silently replace "
     "the first). Nothing of the script was applied (it is checked whole before its first command): take out the "
     "one that should not be there and run it again"),
    ("gaslands", ['{"type": "undo", "type": "confirm"}'], 1, "the key 'type' appears twice in one object"),
    ("thunder_road", ['{"type": "roll", "player": "Ana", "dice": [1, 2, 3, 4]}',
                      '{"type": "damage", "vehicel": "Ben/small", "on_fire": true}'], 2,
     "damage: unknown field 'vehicel' (did you mean 'vehicle'?); the fields here are on_fire, vehicle"),
])
def test_a_misspelt_field_in_a_script_is_refused_naming_line_and_field(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], gas_setup: Path,
        game: str, lines: list[str], number: int, said: str) -> None:
    """An owner's `{"type":"undo","step":3}` was accepted and undid 1 step; Space Race `"dice": 4` was
    accepted and the die then awaited; `"templat"` was refused as "needs 'template'" without naming the
    misspelt key.  Now the line is refused with the field and the likeliest meant one, and nothing runs."""
    script = tmp_path / "s.jsonl"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    setup = gas_setup
    if game != "gaslands":
        setup = tmp_path / "setup.toml"
        setup.write_text(game_package(game).EXAMPLE_SETUP, encoding="utf-8")
    db = tmp_path / "g.sqlite"
    code, out, err = run(capsys, "play", game, "--setup", str(setup), "--script", str(script), "--db", str(db))
    assert code == 2 and out == ""
    assert f"s.jsonl:{number}: {said}" in err and "Nothing of the script was applied" in err
    assert not db.exists()


def test_a_misspelt_field_leaves_a_resumed_game_as_it_was(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         gas_setup: Path) -> None:
    """The probe's undo with "step" took back a decision of the game being resumed; a script with a
    misspelt field now changes nothing of it, not even the lines before the bad one."""
    db = tmp_path / "g.sqlite"
    moves = tmp_path / "moves.jsonl"
    moves.write_text('{"type": "choose_template", "template": "gentle", "hand": "left"}\n', encoding="utf-8")
    assert run(capsys, "play", "gaslands", "--setup", str(gas_setup), "--script", str(moves), "--db", str(db))[0] == 0
    before = digest(db)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "place_template"}\n{"type": "undo", "step": 3}\n', encoding="utf-8")
    code, _, err = run(capsys, "play", "gaslands", "--script", str(bad), "--db", str(db))
    assert code == 2 and "bad.jsonl:2: undo: unknown field 'step' (did you mean 'steps'?)" in err
    assert digest(db) == before


def test_the_rules_refuse_a_misspelt_field_from_any_source() -> None:
    """The same check is the game's, not the script reader's: a command built from JSON anywhere (the web
    page, a test, a script) with a field its command does not take is refused by the match, naming it."""
    import tomllib

    from games.core import Command, Match

    gaslands = game_package("gaslands")
    match = Match.begin(gaslands.GAME, tomllib.loads(GASLANDS_SETUP))
    outcome = match.apply(Command.from_json({"type": "undo", "step": 3}))
    assert not outcome.accepted and outcome.reason is not None and "did you mean 'steps'?" in outcome.reason
    outcome = match.apply(Command.from_json({"type": "choose_template", "templat": "gentle"}))
    assert not outcome.accepted and outcome.reason is not None and "unknown field 'templat'" in outcome.reason
    assert match.apply(Command.from_json({"type": "choose_template", "template": "gentle", "hand": "left"})).accepted
    space = game_package("space_race")
    match = Match.begin(space.GAME, {})
    assert match.apply(Command.from_json({"type": "begin_turn"})).accepted
    outcome = match.apply(Command.from_json({"type": "attempt", "side": "USSR", "ops": 2, "dice": 4}))
    assert not outcome.accepted and outcome.reason is not None and "did you mean 'die'?" in outcome.reason
    road = game_package("thunder_road")
    match = Match.begin(road.GAME, tomllib.loads(road.EXAMPLE_SETUP))
    # A misspelt field was dropped: "frist" left the setup's first player to go first, without a word.
    outcome = match.apply(Command.from_json({"type": "damage", "vehicel": "Ben/small"}))
    assert not outcome.accepted and outcome.reason is not None and "did you mean 'vehicle'?" in outcome.reason
    outcome = match.apply(Command.from_json({"type": "roll", "player": "Ana", "dice": [1, 2, 3, 4], "frist": "Ben"}))
    assert not outcome.accepted and outcome.reason is not None and "did you mean 'first'?" in outcome.reason
    assert match.apply(Command.from_json({"type": "roll", "player": "Ana", "dice": [1, 2, 3, 4], "first": "Ben"})).accepted


# -- 2. arguments checked before a game is begun --------------------------------------------------------


def test_a_script_that_does_not_exist_begins_no_game(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     gas_setup: Path) -> None:
    """`play gaslands --setup gas.toml --script sc/nonexist.jsonl --db db/new.sqlite` said "cannot read the
    script" but `log list` then showed game 1 with 2 events, and the next run resumed it."""
    db = tmp_path / "db" / "new.sqlite"
    db.parent.mkdir()
    missing = tmp_path / "sc" / "nonexist.jsonl"
    code, out, err = run(capsys, "play", "gaslands", "--setup", str(gas_setup), "--script", str(missing),
                         "--db", str(db))
    assert code == 2 and out == ""
    assert f"cannot read the script {missing}: No such file or directory" in err
    assert list(db.parent.iterdir()) == []


def test_a_bad_web_address_begins_no_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`sim --web 999.1.1.1:80` printed "game 1 begins" (and kept it in the log) before refusing the
    address."""
    db = tmp_path / "sim.sqlite"
    code, out, err = run(capsys, "sim", "gaslands", "--web", "999.1.1.1:80", "--db", str(db), "--keys", "q")
    assert code == 2 and "begins" not in out
    assert "--web '999.1.1.1:80': '999.1.1.1' is not an IP address" in err
    assert list(tmp_path.iterdir()) == []


def test_a_web_port_taken_begins_no_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A --web port another program listens on is refused before the game begins, not after."""
    db = tmp_path / "sim.sqlite"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, err = run(capsys, "sim", "gaslands", "--web", f"127.0.0.1:{port}", "--db", str(db), "--keys", "q")
    assert code == 2 and "begins" not in out
    assert f"cannot listen on 127.0.0.1:{port}" in err
    assert list(tmp_path.iterdir()) == []


# -- 3. sim names the setup file, and leaves no log behind when it is refused ----------------------------


def test_sim_names_a_binary_setup_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`sim --setup su/bin.toml` said only "'utf-8' codec can't decode byte 0xf0 ...", without the file."""
    setup = tmp_path / "bin.toml"
    setup.write_bytes(b"\xf0\x9f\x00\xff binary")
    db = tmp_path / "sim.sqlite"
    code, out, err = run(capsys, "sim", "gaslands", "--setup", str(setup), "--db", str(db), "--keys", "q")
    assert code == 2 and "codec" not in err
    assert f"pitboard: setup file {setup}: line 1 is not UTF-8 text" in err
    assert not db.exists()


@pytest.mark.parametrize("no_log", [False, True])
def test_sim_names_a_refused_setup_and_leaves_no_log(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     no_log: bool) -> None:
    """`sim` said "the setup was refused: setup: [scenario]: unknown key ..." without the file (`play`
    names it), and left an empty sqlite file behind."""
    setup = tmp_path / "su" / "typo.toml"
    setup.parent.mkdir()
    setup.write_text(GASLANDS_SETUP.replace("[scenario]\n", "[scenario]\nflag = true\n"), encoding="utf-8")
    assert "flag = true" in setup.read_text()
    db = tmp_path / "db" / "sim.sqlite"
    log = ["--no-log"] if no_log else ["--db", str(db)]
    code, out, err = run(capsys, "sim", "gaslands", "--setup", str(setup), *log, "--keys", "q")
    assert code == 2 and "begins" not in out
    assert f"pitboard: setup file {setup}: [scenario]: unknown key 'flag'" in err
    assert "the setup was refused" not in err
    assert not db.parent.exists()
    code, _, play_err = run(capsys, "play", "gaslands", "--setup", str(setup), "--db", str(db))
    assert code == 2 and play_err == err  # the same words as `play`


def test_sim_with_a_refused_setup_still_resumes_the_unfinished_game(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """The setup is only the table a new game begins with: an unfinished game in the log is resumed as
    before (its own table), and --new with the refused setup changes nothing in the log."""
    db = tmp_path / "sim.sqlite"
    assert run(capsys, "sim", "gaslands", "--db", str(db), "--keys", "q")[0] == 0
    bad = tmp_path / "bad.toml"
    bad.write_text("[scenario]\n", encoding="utf-8")
    code, out, _ = run(capsys, "sim", "gaslands", "--setup", str(bad), "--db", str(db), "--keys", "q")
    assert code == 0 and "resumed game 1" in out
    code, out, err = run(capsys, "sim", "gaslands", "--setup", str(bad), "--db", str(db), "--new", "--keys", "q")
    assert code == 2 and f"setup file {bad}: Gaslands needs 2 to 6 players" in err
    with Store(db, read_only=True) as store:
        assert [g.id for g in store.games()] == [1]


@pytest.mark.parametrize("text", ["", "  \n\n", "# the table for Friday\n"])
def test_an_empty_setup_file_is_called_empty(text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A bad-input audit: a setup file of 0 bytes (a crash, a copy cut short) was told only "Gaslands needs 2 to 6
    players"; the config and the face library say "is empty".  Nothing is begun in the log."""
    empty = tmp_path / "table.toml"
    empty.write_text(text, encoding="utf-8")
    db = tmp_path / "g.sqlite"
    code, _, err = run(capsys, "play", "gaslands", "--setup", str(empty), "--db", str(db))
    assert code == 2 and f"setup file {empty}: holds nothing (empty, or only comments: a crash or a copy cut short " \
        "can leave it so); Gaslands needs 2 to 6 players" in err
    if db.exists():
        with Store(db, read_only=True) as store:
            assert store.games() == []


@pytest.mark.parametrize("keys,said", [("\\x", "'\\x' is not a key"), ("o\\u12", "'\\u' is not a key"),
                                        ("\\N{foo}", "'\\N' is not a key"),
                                        ("o\udcff", "not text in this terminal's encoding")])
def test_sim_keys_with_a_bad_escape_are_refused_in_words(capsys: pytest.CaptureFixture[str], keys: str, said: str) -> None:
    """Seen: `sim --keys '\\x'` ended in Python's unicodeescape traceback, and 'é' was read as '©'."""
    assert main(["sim", "--no-log", "--keys", keys]) == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err


def test_sim_keys_keep_enter_and_other_letters() -> None:
    from device.cli_device import keystrokes

    assert keystrokes("on354\\nn") == "on354\nn"
    assert keystrokes("é\\\\") == "é\\"


def test_another_games_setup_is_named_with_how_to_play_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A mistyped command line (`play gaslands` given the Thunder Road table) said only "unknown key
    'first_player' (did you mean 'players'?)": a player renames keys until the setup is a broken
    Gaslands one.  The keys say which game the file is for, and how to play it is said."""
    setup = tmp_path / "road.toml"
    setup.write_text(game_package("thunder_road").EXAMPLE_SETUP, encoding="utf-8")
    db = tmp_path / "g.sqlite"
    code, _, err = run(capsys, "play", "gaslands", "--setup", str(setup), "--db", str(db))
    assert code == 2 and f"setup file {setup}: unknown key 'first_player'" in err
    assert ("this looks like a Thunder Road: Vendetta setup (first_player and board are its keys, not Gaslands: "
            "Refuelled's): `pitboard play thunder_road` with the same --setup plays it") in err
    code, _, err = run(capsys, "sim", "gaslands", "--setup", str(setup), "--db", str(db), "--keys", "q")
    assert code == 2 and f"`pitboard sim thunder_road --setup {setup}` plays it" in err
    assert not db.exists()
    space = tmp_path / "space.toml"
    space.write_text(game_package("space_race").EXAMPLE_SETUP, encoding="utf-8")
    code, _, err = run(capsys, "play", "grand_tour", "--setup", str(space), "--db", str(db))
    assert code == 2 and "a Twilight Struggle Space Race setup (edition is its key, not Flamme Rouge Grand Tour's)" in err
    # a key of no game's setup says nothing more than the rules do
    typo = tmp_path / "typo.toml"
    typo.write_text(game_package("gaslands").EXAMPLE_SETUP + "\nplayerz = 1\n", encoding="utf-8")
    code, _, err = run(capsys, "play", "gaslands", "--setup", str(typo), "--db", str(db))
    assert code == 2 and "unknown key 'playerz'" in err and "looks like" not in err
