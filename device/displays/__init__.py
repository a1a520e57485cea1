"""The players' OLED screens: luma.oled drivers, a diffing layer that sends only what changed, a TCA9548A
channel-selecting transport, and a bank that keeps the other screens going when one fails.

Typical use (the app)::

    bank = build_bank(config.screens)            # real I2C; backend="recording"/"dummy"/"capture"/"terminal"
    bank.open()                                  # missing screens are reported, not raised
    bank.show("Alice", render_view("gaslands", view, blink_on=True))
    bank.poll()                                  # now and then: retries screens that are down
    bank.status()                                # player → ScreenStatus
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from device.displays.bank import Backoff, DisplayBank, ScreenEvent, ScreenEventKind, ScreenState, ScreenStatus
from device.displays.partial import Addressing, PartialUpdater, Window, pack_pages, plan_windows
from device.displays.render import compose_terminal, oled_look, to_braille, to_halfblocks, to_text, write_gif, write_png
from device.displays.screens import (
    HEIGHT,
    WIDTH,
    CaptureScreen,
    Driver,
    DummyScreen,
    LumaScreen,
    Screen,
    ScreenSpec,
    ScreenSpecLike,
    SerialFactory,
    TerminalScreen,
    i2c_serial_factory,
    where,
)
from device.displays.transport import (
    BUS_ERRORS,
    CountingSerial,
    Mux,
    MuxedSerial,
    MuxRegistry,
    RecordingSerial,
    Transfer,
)

BACKENDS = ("i2c", "recording", "dummy", "capture", "terminal")


def build_screen(
    spec: ScreenSpecLike, backend: str = "i2c", *, serial_factory: SerialFactory | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Screen:
    """One screen for ``spec`` on ``backend`` (see :data:`BACKENDS`).  ``recording`` drives the real luma
    driver and diff layer into a :class:`RecordingSerial` (bytes counted, nothing on a bus)."""
    if backend == "i2c":
        return LumaScreen(spec, serial_factory)
    if backend == "recording":
        return LumaScreen(spec, serial_factory or (lambda _spec: RecordingSerial()))
    if backend == "dummy":
        return DummyScreen(where(spec), rotate=spec.rotate)
    if backend == "capture":
        return CaptureScreen(spec.player, clock=clock)
    if backend == "terminal":
        return TerminalScreen(spec.player)
    raise ValueError(f"screen backend {backend!r} is unknown; allowed: {', '.join(BACKENDS)}")


def build_bank(
    specs: Iterable[ScreenSpecLike], backend: str = "i2c", *, serial_factory: SerialFactory | None = None,
    clock: Callable[[], float] = time.monotonic, backoff: Backoff = Backoff(),
    on_event: Callable[[ScreenEvent], None] | None = None,
) -> DisplayBank:
    """A bank of screens from ``[[screens]]`` entries (``device.config.ScreenConfig`` or :class:`ScreenSpec`).

    On ``i2c`` all screens share one mux registry, so screens behind the same TCA9548A share its lock.
    """
    specs = list(specs)
    if backend == "i2c" and serial_factory is None:
        serial_factory = i2c_serial_factory(MuxRegistry())
    screens: dict[str, Any] = {}
    for spec in specs:
        if spec.player in screens:
            raise ValueError(f"two screens for player {spec.player!r}; allowed: one screen per player")
        screens[spec.player] = build_screen(spec, backend, serial_factory=serial_factory, clock=clock)
    return DisplayBank(screens, clock=clock, backoff=backoff, on_event=on_event)


def write_captures(bank: DisplayBank, folder: Any, *, scale: int = 4, last_ms: int = 2000) -> list[Path]:
    """One animated GIF per player whose screen is a :class:`CaptureScreen` that showed something:
    ``<folder>/<player>.gif`` (the name made file-safe), labelled with the player.  Returns the paths."""
    out = []
    folder = Path(folder)
    for player in bank.players:
        screen = bank.screen(player)
        if isinstance(screen, CaptureScreen) and screen.frames:
            stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", player).strip("._") or "player"
            path = folder / f"{stem}.gif"
            screen.write_gif(path, scale=scale, label=player, last_ms=last_ms)
            out.append(path)
    return out


__all__ = [
    "Addressing", "BACKENDS", "BUS_ERRORS", "Backoff", "CaptureScreen", "CountingSerial", "DisplayBank", "Driver",
    "DummyScreen", "HEIGHT", "LumaScreen", "Mux", "MuxRegistry", "MuxedSerial", "PartialUpdater", "RecordingSerial",
    "Screen", "ScreenEvent", "ScreenEventKind", "ScreenSpec", "ScreenSpecLike", "ScreenState", "ScreenStatus",
    "TerminalScreen", "Transfer", "WIDTH", "Window", "build_bank", "build_screen", "compose_terminal",
    "i2c_serial_factory", "oled_look", "pack_pages", "plan_windows", "to_braille", "to_halfblocks", "to_text",
    "where", "write_captures", "write_gif", "write_png",
]
