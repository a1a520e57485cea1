"""``pitboard check`` and the screens' players.  A [[screens]] table names its player "exactly as in the game
setup" (pitboard.toml); a misspelt name gave every screen OK in check, and only `run` warned, after which
that player saw nothing all evening.  Check warns now, for the misspelt name and for the player left
without a screen; a warning is no failure (a table may seat more players than it has screens)."""

from __future__ import annotations

import io

from device.cli_device import probe_game, run_check
from device.config import PitboardConfig, ScreenConfig


class _NoBus:
    def __init__(self, port: int) -> None:
        raise FileNotFoundError(f"/dev/i2c-{port}")


def test_a_screen_for_a_misspelt_player_is_warned_with_the_players_at_the_table() -> None:
    lines = probe_game(PitboardConfig(screens=(ScreenConfig("Alice"), ScreenConfig("Bobby", address=0x3D))))
    assert [(line.status, line.part) for line in lines] == [("OK", "game gaslands"), ("WARN", "screen Bobby"),
                                                           ("WARN", "screens")]
    assert "'Bobby' is not at this table (players: Alice, Bob)" in lines[1].detail
    assert lines[2].detail.startswith("no [[screens]] for Bob: that player has no screen of their own")


def test_screens_for_every_player_give_no_warning_and_a_warning_does_not_fail_check() -> None:
    good = PitboardConfig(screens=(ScreenConfig("Alice"), ScreenConfig("Bob", address=0x3D)))
    assert [line.status for line in probe_game(good)] == ["OK"]
    out = io.StringIO()
    bad = PitboardConfig(screens=(ScreenConfig("Alice"), ScreenConfig("Bobby", address=0x3D)))
    run_check(bad, out=out, smbus_factory=_NoBus)
    text = out.getvalue()
    assert "WARN  screen Bobby: 'Bobby' is not at this table" in text
    assert "FAIL  game" not in text


def test_names_the_screens_cannot_draw_or_draw_alike_are_warned(tmp_path) -> None:
    """The screens' font has Latin letters, digits and common signs: "李" is drawn "?" on every screen
    (``device.dashboards.common.drawable``), and "Jörg" and "Jorg" are both drawn "Jorg"."""
    from device.config import GameConfig

    setup = tmp_path / "setup.toml"
    setup.write_text("".join(f'[[players]]\nname = "{n}"\n[[players.vehicles]]\ntype = "car"\n'
                             for n in ("李", "Jörg", "Jorg", "Søren")), encoding="utf-8")
    lines = probe_game(PitboardConfig(game=GameConfig(setup=setup)))
    assert [(line.status, line.part) for line in lines] == [("OK", "game gaslands"), ("WARN", "player 李"),
                                                           ("WARN", "players")]
    assert "the screens draw '李' as '?'" in lines[1].detail and "Latin letters" in lines[1].detail
    assert "'Jörg' and 'Jorg' look the same on the screens ('Jorg')" in lines[2].detail


def test_a_setup_car_tag_with_another_job_fails_check_and_the_camera_does_not_take_it(tmp_path, monkeypatch) -> None:
    """Seen: a setup giving a car `tag = 0` (a corner tag), a template's or a token-zone card's tag, or one
    outside the 4X4_100 set, was "a valid table" in check, and the camera took that tag for the car; the
    table config refuses the same tags in its own list."""
    from device.camera_input import VisionReader, car_tag_clashes
    from device.config import CameraBackend, CameraConfig, GameConfig
    from vision.table import default_config

    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    cfg = default_config()
    assert car_tag_clashes({10: "a", 11: "b"}, cfg) == {}
    clashes = car_tag_clashes({0: "a", 30: "b", 20: "c", 150: "d", 12: "e"}, cfg)
    assert sorted(clashes) == [0, 20, 30, 150]
    assert clashes[0] == "a corner tag's" and "token-zone card p1" in clashes[20]
    assert "template" in clashes[30] and "0 to 99" in clashes[150]
    setup = tmp_path / "setup.toml"
    setup.write_text('[[players]]\nname = "Alice"\n[[players.vehicles]]\ntype = "car"\ntag = 0\n'
                     '[[players]]\nname = "Bob"\n[[players.vehicles]]\ntype = "car"\ntag = 11\n')
    camera = CameraConfig(backend=CameraBackend.REPLAY, device=str(tmp_path))
    lines = probe_game(PitboardConfig(game=GameConfig(setup=setup), camera=camera))
    bad = [line for line in lines if line.part == "setup tags"]
    assert bad and bad[0].status == "FAIL" and "has tag 0, a corner tag's" in bad[0].detail
    assert "pitboard markers" in bad[0].detail
    # the appliance: the camera reads the other cars, the clash is said (screens, journal)
    from vision.calibration import calibrate_from_points
    from device import table_files as tf

    cal = tmp_path / "cal.json"
    tf.save_calibration(calibrate_from_points([(100, 80), (1180, 80), (1180, 660), (100, 660)], (800.0, 450.0),
                                              (1280, 720)), cal)
    problems: list = []
    reader = VisionReader.from_files(cal, None, {0: "alice-1", 11: "bob-1"}, problems=problems)
    assert reader.table_config.car_tags == {11: "bob-1"}
    assert [p.short for p in problems if p.part == "setup tags"] == ["CAR TAG CLASH"]


def test_a_setup_tag_on_a_vehicle_without_an_id_reaches_the_camera(tmp_path) -> None:
    """A setup may leave a vehicle's id out (the rules call it "alice-1"); its tag was dropped on the way to
    the camera (which needed the id written out), so the car was never seen."""
    from device.camera_input import car_tags_from_options
    from device.cli_device import read_setup
    from games import game_package

    setup = tmp_path / "setup.toml"
    setup.write_text('[[players]]\nname = "Alice"\n[[players.vehicles]]\ntype = "car"\ntag = 10\n'
                     '[[players]]\nname = "Bob"\n[[players.vehicles]]\nid = "brick"\ntype = "truck"\ntag = 11\n')
    module = game_package("gaslands")
    assert car_tags_from_options(read_setup(module, setup, None), module) == {10: "alice-1", 11: "brick"}


def test_check_and_run_name_the_game_a_setup_was_written_for(tmp_path) -> None:
    """[game] name = "gaslands" with the Thunder Road table as [game] setup: check FAILed with the rules'
    "unknown key 'first_player' (did you mean 'players'?)"; it now says whose setup it is and what to change."""
    import pytest

    from device.cli import UserError
    from device.cli_device import build_appliance
    from device.config import parse_config
    from games import game_package

    setup = tmp_path / "road.toml"
    setup.write_text(game_package("thunder_road").EXAMPLE_SETUP, encoding="utf-8")
    config = parse_config({"game": {"name": "gaslands", "setup": str(setup)}, "screens": [{"player": "Alice"}],
                           "store": {"path": str(tmp_path / "games.sqlite")}})
    lines = probe_game(config)
    assert [(line.status, line.part) for line in lines] == [("FAIL", "game gaslands")]
    assert lines[0].detail.startswith(f"setup file {setup}: unknown key 'first_player'")
    assert lines[0].detail.endswith("this looks like a Thunder Road: Vendetta setup (first_player and board are its "
                                    "keys, not Gaslands: Refuelled's): [game] name = \"thunder_road\" in "
                                    "pitboard.toml plays it")
    with pytest.raises(UserError, match=r'the game could not start: .*Thunder Road: Vendetta setup .*\[game\] name = '
                                        r'"thunder_road" in pitboard.toml plays it'):
        build_appliance(config, screen_backend="recording", log=lambda m: None)


def test_check_with_warnings_does_not_end_all_ok_without_them() -> None:
    """A misspelt player ("bob") was WARNed, then check ended "all parts OK": read as all fine, that player
    played the evening with no screen of their own."""
    from device.cli_device import CheckLine, check_summary

    ok, warn, fail = CheckLine("OK", "a", ""), CheckLine("WARN", "b", ""), CheckLine("FAIL", "c", "")
    assert check_summary([ok, ok]) == "all parts OK"
    assert check_summary([ok, warn]) == "all parts OK; 1 warning(s) above: read them"
    assert check_summary([fail, warn, warn]) == "1 part(s) FAILED, 2 warning(s)"
    out = io.StringIO()
    bad = PitboardConfig(screens=(ScreenConfig("Alice"), ScreenConfig("Bobby", address=0x3D)))
    assert run_check(bad, out=out, smbus_factory=_NoBus) == 1  # the screens' bus is missing here: FAIL
    assert out.getvalue().rstrip().endswith("warning(s)")


def test_an_empty_config_file_is_refused_not_passed(tmp_path) -> None:
    """A 0-byte pitboard.toml (a power cut while it was written) passed as "OK config: 0 screen(s)", and `run`
    started with no screens and no buttons. It is refused by name, as a mistyped one is."""
    import pytest

    from device.config import ConfigError, load_config

    for text in ("", "\n  \n"):
        empty = tmp_path / "pitboard.toml"
        empty.write_text(text)
        with pytest.raises(ConfigError, match="is empty .*power cut.*copy firmware_config/pitboard.toml"):
            load_config(empty)


def test_a_table_where_no_one_has_a_screen_is_said_so() -> None:
    """An audit: with screens for Alice and Bob and a game of USA and USSR begun from the phone, check said "no
    [[screens]] for USA, USSR: they have no screen of their own (the others' screens still show the game)":
    no screen showed anything of it."""
    lines = probe_game(PitboardConfig(screens=(ScreenConfig("Ann"), ScreenConfig("Cy", address=0x3D))))
    (warn,) = [line for line in lines if line.part == "screens"]
    assert warn.detail == ("no one at this table has a screen ([[screens]] are for Ann, Cy): the screens show "
                           "nothing of this game; the phones' Live page shows every player's screen")


def test_a_grand_tour_on_a_placeholder_or_half_given_time_sheet_is_warned_by_check_and_the_phone(tmp_path) -> None:
    """The Grand Tour's printed sheet is not in the seed (its size and start cell are placeholders): a setup that
    gives none, or only some of, ``[time_track]``'s three keys was "a valid table" everywhere, and the screens said
    "placeholder time sheet" only when a rider reached the sheet's edge (an audit: ``columns = 20`` alone)."""
    from device.config import GameConfig
    from device.web.setup import check_setup

    setup = tmp_path / "tour.toml"
    text = 'stages = 2\nteams = ["red", "blue"]\n[time_track]\ncolumns = 24\n'
    setup.write_text(text, encoding="utf-8")
    config = PitboardConfig(game=GameConfig(name="grand_tour", setup=setup), screens=(ScreenConfig("red"),))
    lines = probe_game(config)
    assert [(line.status, line.part) for line in lines][:2] == [("OK", "game grand_tour"), ("WARN", "game grand_tour")]
    assert lines[1].detail.startswith("time sheet: [time_track] gives columns but not start_column or start_row")
    out = io.StringIO()
    run_check(config, out=out, smbus_factory=_NoBus)
    assert "WARN  game grand_tour: time sheet: [time_track] gives columns" in out.getvalue()
    options, said = check_setup("grand_tour", text)
    assert options is not None and "; note: time sheet: [time_track] gives columns but not" in said, said
    whole = text + "start_column = 0\nstart_row = 3\n"
    setup.write_text(whole, encoding="utf-8")
    assert [(line.status, line.part) for line in probe_game(config)] == [("OK", "game grand_tour"), ("WARN", "screens")]
    assert "time sheet" not in check_setup("grand_tour", whole)[1]
