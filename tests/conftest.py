"""What every test shares: no owner's file of the machine the tests run on is read or written.

On an installed appliance (``deploy/install.sh``; the emulated Pi runs the suite there) the default config
``/etc/pitboard/pitboard.toml`` names the data folder ``/var/lib/pitboard``: a test running ``teach dice`` or
``check`` without ``--config`` read that config and taught (or took back) examples in the owner's face library,
whatever ``PITBOARD_DATA`` the test had set.  Each test starts with the default config at a path that does not
exist and its own data folder; a test that means another sets it itself (its fixtures run after this one).
A ``pitboard`` the tests start as a process of its own inherits the data folder (an environment variable) but
not the moved default config: such a test gives ``--config`` (or a command that reads none).
"""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _no_owner_files(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    own = tmp_path_factory.mktemp("owner")
    monkeypatch.setenv("PITBOARD_DATA", str(own / "data"))
    try:
        import device.config
    except ImportError:  # a test run without the device package's dependencies: nothing to guard
        return
    monkeypatch.setattr(device.config, "DEFAULT_PATH", Path(own / "no-appliance-config" / "pitboard.toml"))
    try:
        import device.cli_device
    except ImportError:
        return
    monkeypatch.setattr(device.cli_device, "DEFAULT_PATH", device.config.DEFAULT_PATH)
