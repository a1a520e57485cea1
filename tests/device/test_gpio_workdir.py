"""lgpio's working folder and gpiozero's own reasons, for the wiring check run as the service user.

A deploy audit: lgpio (gpiozero's pin factory on a Pi 5) makes its notification pipes in the current folder
(or ``LG_WD``); ``sudo -u pitboard pitboard check`` from a Bookworm home folder (mode 0700) left it unable to,
and every button read "no GPIO on this machine (... install python3-lgpio ...)" on a Pi that had it, gpiozero's
own reason hidden.  Root may write anywhere, so the folder's rights are given through ``os.access``."""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path

import pytest

import device.buttons
from device.buttons import lgpio_workdir
import io

from device.cli_device import check_buttons_interactive, probe_buttons
from device.config import parse_config


def closed(monkeypatch: pytest.MonkeyPatch, *folders: Path) -> None:
    shut = {str(f) for f in folders}
    monkeypatch.setattr(device.buttons.os, "access", lambda path, mode: str(path) not in shut)


def test_a_folder_the_user_cannot_write_sends_lgpio_to_the_data_folder(tmp_path, monkeypatch):
    home, data = tmp_path / "home", tmp_path / "data"
    home.mkdir()
    data.mkdir()
    closed(monkeypatch, home)
    env = {"PITBOARD_DATA": str(data)}
    assert lgpio_workdir(env, cwd=str(home)) == str(data)
    assert env["LG_WD"] == str(data)


def test_without_a_writable_data_folder_lgpio_works_in_the_temporary_folder(tmp_path, monkeypatch):
    home, data = tmp_path / "home", tmp_path / "data"
    home.mkdir()
    data.mkdir()
    closed(monkeypatch, home, data)
    env = {"PITBOARD_DATA": str(data)}
    assert lgpio_workdir(env, cwd=str(home)) == tempfile.gettempdir() == env["LG_WD"]
    env = {}  # no data folder named at all
    assert lgpio_workdir(env, cwd=str(home)) == tempfile.gettempdir() == env["LG_WD"]


def test_a_writable_folder_or_an_owner_s_lg_wd_is_left_alone(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    env: dict[str, str] = {}
    assert lgpio_workdir(env, cwd=str(home)) is None and env == {}  # writable: lgpio's default is fine
    closed(monkeypatch, home)
    env = {"LG_WD": "/run/mine"}
    assert lgpio_workdir(env, cwd=str(home)) is None and env == {"LG_WD": "/run/mine"}


def test_no_pin_factory_says_gpiozero_s_own_reason(monkeypatch):
    """The check's FAIL line carries what each pin factory said, not only "install python3-lgpio"."""
    import gpiozero
    from gpiozero.exc import BadPinFactory, PinFactoryFallback

    def no_factory(*_a, **_k):
        warnings.warn(PinFactoryFallback("Falling back from lgpio: can not open gpiochip"), stacklevel=2)
        warnings.warn(PinFactoryFallback("Falling back from rpigpio: No module named 'RPi'"), stacklevel=2)
        raise BadPinFactory("Unable to load any default pin factory!")

    monkeypatch.setattr(gpiozero, "Button", no_factory)
    config = parse_config({"game": {"name": "gaslands"}, "screens": [{"player": "Alice"}]})
    lines = probe_buttons(config)
    assert lines[0].status == "FAIL"
    assert lines[0].detail.endswith(": Falling back from lgpio: can not open gpiochip; Falling back from rpigpio: No "
                                    "module named 'RPi'"), lines[0].detail
    assert all(line.detail == "no GPIO on this machine (as above)" for line in lines[1:])
    (line,) = check_buttons_interactive(config, io.StringIO(), timeout_s=0.01)
    assert "Falling back from lgpio: can not open gpiochip" in line.detail
