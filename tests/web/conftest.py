"""The web tests' table: a simulated table whose data folder is the test's own (``PITBOARD_DATA``), so
that what the page saves (rule facts, setups, face libraries) never reaches the owner's."""

from __future__ import annotations

import pytest


@pytest.fixture
def table(tmp_path, monkeypatch):
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")
    from web_helpers import Table

    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    t = Table(tmp_path)
    yield t
    t.close()
