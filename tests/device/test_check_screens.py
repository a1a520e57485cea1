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
