"""Any presses, in any order, at any pace: a table where children reach the panel, a player who presses on before
the screen has turned, a long press held by accident.

Each game from its example setup, in the loop with the real dashboards, takes a random run of presses (short and
long, with random pauses between them: menus time out, notices stand and go) and:

- never raises (a crash at the table loses the evening: the service restarts, the screens go dark);
- draws a 128x64 one-bit picture for every screen it redraws, and for every player's screen by the end;
- keeps the log the truth: the game folded again from the SQLite file, as a restart does, is the game on the
  screens ("events are appended before anyone sees their effect; state is a fold of events").
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from device.store import Store
from games.core import Match

from test_pages import GAMES, Table  # type: ignore[import-not-found]

KEYS = ("next", "back", "select", "ok", "next_long", "back_long", "select_long", "ok_long")
#: OK and NEXT more often than the others, as at a table (and so that a run gets past the first roll: with every
#: key alike, Thunder Road's four movement dice were seldom all entered)
WEIGHTED = ("ok", "ok", "ok", "next", "next", "select", "select", "back", *KEYS[4:])
#: a press and the seconds before it (0: at once; up to past the menu's idle close and a notice's end)
PRESS = st.tuples(st.sampled_from(WEIGHTED), st.sampled_from((0.0, 0.3, 1.6, 5.0, 25.0)))


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(presses=st.lists(PRESS, min_size=1, max_size=80))
def test_any_presses_keep_the_screens_drawn_and_the_log_the_truth(game: str, presses: list[tuple[str, float]],
                                                                   tmp_path_factory: pytest.TempPathFactory) -> None:
    folder: Path = tmp_path_factory.mktemp(game)
    t = Table(game, folder)
    try:
        for key, wait in presses:
            if wait:
                t.later(wait)
            t.press(key)
            assert t.screens.images, "no screen drawn"
            for player, image in t.screens.images.items():
                assert image.size == (128, 64) and image.mode == "1", (player, image.size, image.mode)
        live = t.match.state
        assert set(t.screens.images) == {str(v.player) for v in t.app.screen_views()}, "a player's screen not drawn"
    finally:
        t.close()
    store = Store(folder / f"{game}.sqlite")
    try:
        (info,) = store.games()  # the one game, its events as written, folded again as a restart does
        again = Match(t.module.GAME, store.records(info.id))
        assert again.state == live
        assert info.events == len(t.match.records)
    finally:
        store.close()
