"""The rule facts, the Gaslands chart and the Fire die saved on the phone's pages are the appliance's too: a game
`pitboard run` begins from ``[game] setup`` (or the example setup) takes them, the setup's own tables winning, and
`check` says which files it read, which facts the setup keeps and which saved file it cannot read.

Found: the Rule facts page saved "a round nobody crosses costs a minute: yes" into the data folder, and the next
Grand Tour the appliance began from its config played without it (only a game begun from the phone's New game page
read the file)."""

from __future__ import annotations

from pathlib import Path

from gpiozero.pins.mock import MockFactory

from device.config import load_config
from device.paths import data_dir
from games import game_package


def _config(tmp_path: Path, game: str, setup: str | None = None):  # type: ignore[no-untyped-def]
    lines = [f'[game]\nname = "{game}"']
    if setup is not None:
        (tmp_path / "setup.toml").write_text(setup, encoding="utf-8")
        lines.append(f'setup = "{tmp_path / "setup.toml"}"')
    lines.append(f'\n[store]\npath = "{tmp_path / "games.sqlite"}"')
    lines += ['\n[[screens]]\nplayer = "red"', '\n[[screens]]\nplayer = "blue"\naddress = 0x3D']
    (tmp_path / "pitboard.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return load_config(tmp_path / "pitboard.toml")


def _game_lines(config) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    from device.cli_device import probe_game

    return [(line.status, line.detail) for line in probe_game(config) if line.part.startswith("game ")]


def test_a_grand_tour_begun_from_the_config_takes_the_saved_rule_facts(tmp_path: Path) -> None:
    from device.cli_device import build_appliance, read_setup

    facts = data_dir() / "grand_tour-facts.toml"
    facts.write_text("lose_time_every_round = true\n", encoding="utf-8")
    config = _config(tmp_path, "grand_tour")
    assert read_setup(game_package("grand_tour"), None)["lose_time_every_round"] is True
    status, detail = _game_lines(config)[0]
    assert status == "OK" and detail == f"example setup is a valid table, with what was saved on the phone's pages: {facts}"
    factory = MockFactory()
    try:
        appliance = build_appliance(config, pin_factory=factory, screen_backend="recording", log=lambda m: None)
        try:
            assert appliance.app.match.state.scoring.lose_time_every_round is True  # the game the table plays
        finally:
            appliance.close()
    finally:
        factory.reset()


def test_the_setups_own_fact_wins_and_check_says_so(tmp_path: Path) -> None:
    from device.cli_device import read_setup

    facts = data_dir() / "grand_tour-facts.toml"
    facts.write_text("lose_time_every_round = true\n", encoding="utf-8")
    setup = 'stages = 2\nteams = ["red", "blue"]\nspecialties = false\nlose_time_every_round = false\n'
    config = _config(tmp_path, "grand_tour", setup)
    assert read_setup(game_package("grand_tour"), config.game.setup)["lose_time_every_round"] is False
    lines = _game_lines(config)
    assert lines[0] == ("OK", f"{config.game.setup} is a valid table"), lines  # nothing taken from the file
    assert ("WARN", f"the setup's own lose_time_every_round is used, not the saved facts in {facts} (delete those "
                    "lines from the setup to use the saved ones)") in lines, lines


def test_a_saved_file_that_cannot_be_read_is_named_and_the_game_still_begins(tmp_path: Path) -> None:
    from device.cli_device import read_setup

    chart = data_dir() / "gaslands-chart.toml"
    chart.write_text("[chart\nbroken", encoding="utf-8")
    config = _config(tmp_path, "gaslands")
    assert "chart" not in read_setup(game_package("gaslands"), None)  # the packaged chart
    lines = _game_lines(config)
    assert lines[0] == ("OK", "example setup is a valid table"), lines
    warned = [d for s, d in lines if s == "WARN" and str(chart) in d]
    assert len(warned) == 1 and warned[0].endswith("until then this game uses the packaged permitted-gears chart"), lines


def test_a_saved_fire_die_is_the_appliances_thunder_road_fire_die(tmp_path: Path) -> None:
    from device.cli_device import read_setup
    from device.web.setup import FIRE_FILE, read_fire

    packaged = game_package("thunder_road")
    effects = ("eliminate", "out", "nothing", "nothing", "moves", "moves")
    body = "".join(f'[[faces]]\nlabel = "fire{k}"\neffect = "{e}"\n' + ("moves = 2\n" if e == "moves" else "") + "\n"
                   for k, e in enumerate(effects, start=1))
    (data_dir() / FIRE_FILE).write_text(body, encoding="utf-8")
    saved, problem = read_fire(data_dir() / FIRE_FILE)
    assert saved and not problem, problem
    options = read_setup(packaged, None)
    assert options["fire_die"] == {"faces": saved}


def test_saved_facts_that_do_not_fit_the_setup_are_named_and_the_setup_is_played_as_given(tmp_path: Path) -> None:
    """A review: a sheet saved on the phone (20 columns, start in column 15) beside a setup giving only its own
    ``columns = 10`` made a table of 10 columns starting in column 15; `check` failed "the setup file" for a
    start_column it does not hold, and `pitboard run` refused to begin a game it began before."""
    from device.cli_device import build_appliance

    facts = data_dir() / "grand_tour-facts.toml"
    facts.write_text("[time_track]\ncolumns = 20\nstart_column = 15\nstart_row = 2\n", encoding="utf-8")
    setup = 'stages = 2\nteams = ["red", "blue"]\nspecialties = false\n\n[time_track]\ncolumns = 10\n'
    config = _config(tmp_path, "grand_tour", setup)
    lines = _game_lines(config)
    assert lines[0] == ("OK", f"{config.game.setup} is a valid table"), lines
    misfit = [d for s, d in lines if s == "WARN" and "does not fit this setup" in d]
    assert len(misfit) == 1 and str(facts) in misfit[0] and "start_column" in misfit[0], lines
    assert misfit[0].endswith("this game uses the setup as it is"), misfit
    factory, logs = MockFactory(), []
    try:
        appliance = build_appliance(config, pin_factory=factory, screen_backend="recording", log=logs.append)
        appliance.close()
    finally:
        factory.reset()
    assert [m for m in logs if m.startswith("warning: ") and "does not fit this setup" in m], logs


def test_an_empty_setup_is_said_to_hold_nothing_beside_saved_facts(tmp_path: Path) -> None:
    """A review: with facts saved on the phone, an empty setup file was refused for what the merged facts lacked,
    without the hint that the file holds nothing."""
    (data_dir() / "grand_tour-facts.toml").write_text("lose_time_every_round = true\n", encoding="utf-8")
    config = _config(tmp_path, "grand_tour", "# nothing yet\n")
    (status, detail), *_ = _game_lines(config)
    assert status == "FAIL" and "holds nothing" in detail, detail
