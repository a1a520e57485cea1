"""A setup edited while a game is under way begins only the next new game: `check` and `run` say so, with what to
do, and the screens are checked against the table run resumes.

Found (a bad-input audit): a third friend came, the owner added her to the setup and a [[screens]] for her, and
restarted.  `check` said OK to the setup of three and to her screen; `run` resumed the game of two and said only
"a screen for 'green', who is not at this table"."""

from __future__ import annotations

from pathlib import Path

from gpiozero.pins.mock import MockFactory

from device.config import load_config

TWO = 'stages = 2\nteams = ["red", "blue"]\nspecialties = false\n'


def _config(tmp_path: Path, setup: str):  # type: ignore[no-untyped-def]
    (tmp_path / "setup.toml").write_text(setup, encoding="utf-8")
    screens = "".join(f'\n[[screens]]\nplayer = "{team}"\nport = {i + 1}\n'
                      for i, team in enumerate(("red", "blue", "green")))
    text = (f'[game]\nname = "grand_tour"\nsetup = "{tmp_path / "setup.toml"}"\n\n'
            f'[store]\npath = "{tmp_path / "games.sqlite"}"\n{screens}')
    (tmp_path / "pitboard.toml").write_text(text, encoding="utf-8")
    return load_config(tmp_path / "pitboard.toml")


def _begin(config) -> None:  # type: ignore[no-untyped-def]
    from device.cli_device import build_appliance

    factory = MockFactory()
    try:
        build_appliance(config, pin_factory=factory, screen_backend="recording", log=lambda m: None).close()
    finally:
        factory.reset()


def test_a_team_added_to_the_setup_under_way_is_said_by_check_and_run(tmp_path: Path) -> None:
    from device.cli_device import build_appliance, probe_game

    config = _config(tmp_path, TWO)
    _begin(config)  # game 1: red and blue
    lines = [(line.status, line.part, line.detail) for line in probe_game(config)]
    assert not [line for line in lines if line[0] == "WARN" and "not the table" in line[2]], lines  # the same table
    config = _config(tmp_path, TWO.replace('"blue"]', '"blue", "green"]'))  # green came: added, and a screen
    lines = [(line.status, line.part, line.detail) for line in probe_game(config)]
    said = (f"{config.game.setup} (red, blue, green) is not the table of the unfinished grand_tour game 1 that run "
            "resumes (red, blue): a setup begins only a new game. To play it now, end game 1 with New game on the "
            f"phone page, or, the service stopped, `pitboard play grand_tour --new --setup {config.game.setup} --db "
            f"{tmp_path / 'games.sqlite'}` (run then resumes that one)")
    assert ("WARN", "game grand_tour", said) in lines, lines
    assert ("WARN", "screen green", "'green' is not at this table (players: red, blue): run resumes game 1, begun "
                                    "without them (see the game's line)") in lines, lines
    logged: list[str] = []
    factory = MockFactory()
    try:
        appliance = build_appliance(config, pin_factory=factory, screen_backend="recording", log=logged.append)
        try:
            assert appliance.resumed and appliance.game_id == 1
        finally:
            appliance.close()
    finally:
        factory.reset()
    assert f"warning: {said}" in logged, logged


def test_the_rest_of_the_setup_changed_is_said_too(tmp_path: Path) -> None:
    from device.cli_device import probe_game

    config = _config(tmp_path, TWO)
    _begin(config)
    config = _config(tmp_path, TWO.replace("stages = 2", "stages = 3"))
    warned = [line.detail for line in probe_game(config) if line.status == "WARN"]
    assert any(d.startswith(f"{config.game.setup} is not the table the unfinished grand_tour game 1 was begun with "
                            "(the players are, not the rest of it: vehicles, tiles, riders or rule facts), and run "
                            "resumes that game as it was begun: a setup begins only a new game.") for d in warned), warned
